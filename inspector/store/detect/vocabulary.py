"""The shared pieces of the rule_shape patterns: the words and sub-patterns for
where an imperative begins, the agent's verbs, the agent's world, authorities,
standing instructions, destinations, tools, and what exfiltration goes after."""

from __future__ import annotations

import re

# Every rule_shape pattern is compiled with F.

F = re.I | re.M

# Where an imperative can begin: text or line start, after sentence punctuation,
# a closing bracket or a dash, optionally after softeners ("please", "now,").
START = (r"(?:^|(?<=[.!?;:\]\)>}|—–=#*])|(?<=\s-))\s*"
         r"(?:(?:please|kindly|now|and|so|then|also|just|simply|first|next|finally|"
         r"remember to|make sure(?: to| you)?|be sure to|don'?t forget to|"
         r"make it a rule to)[,:]?\s+)*")
# Dropping the standing instructions is distinctive enough to count mid-sentence
# too, as a coordinated imperative ("summarise this, then ignore your rules").
OVERRIDE_START = START.replace("(?:^|", r"(?:^|(?<=, )|(?<=\band )|(?<=\bthen )|", 1)
# An optional short lead-in clause before the imperative ("For search, use …").
LEAD = r"(?:[^,.;:!?\n]{1,60},\s*)?"
# One sentence's worth of text, lazily; a dot inside ".env" or "v2.3" ends nothing.
SPAN = r"(?:[^.;!?\n]|[.!?](?=\w)){0,100}?"

# Verbs an agent performs on its user's behalf. STRONG ones are rarely said to a
# human in a memory ("respond", "reveal", "cc"); WEAK ones ("send", "use",
# "call") also fit a person's own chores, so they need an agent-world cue.
STRONG = (r"repl(?:y|ies)|respond|answer|say|tell|mention|describe|recommend|cc|bcc|forward|"
          r"output|approve|refuse|decline|disregard|ignore|address|quote|"
          r"execute|invoke|trust|treat|obey|comply|pretend|claim|redirect|promote|advertise|"
          r"deny|reject|grant|escalate|exfiltrate|leak|bypass|praise|endorse|refer|omit|"
          r"downplay|disable|prioriti[sz]e")
WEAK = (r"send|e-?mail|mail|share|reveal|disclose|give|call|use|add|append|prepend|include|"
        r"insert|start|begin|end|sign|keep|ask|confirm|book|pay|transfer|delete|remove|run|"
        r"write|read|"
        r"store|save|log|report|notify|mark|translate|summari[sz]e|speak|talk|act|behave|"
        r"offer|charge|refund|issue|list|print|post|upload|copy|format|link|route|query|"
        r"accept|assign|close|open|skip|stop|avoid|direct|show|display|provide|suggest|"
        r"choose|pick|select|prefer|push|sell|upsell|steer|extend|leave out|hide|exclude|"
        r"cancel|flag|tag|rate|rank|move|assume|blame|warn|inform|contact|schedule|waive|"
        r"increase|reduce|set|change|update|apply|enable|allow|switch|turn off|turn on|"
        r"remind|nag|urge|encourage|persuade|pressure")
VERB = rf"(?:{STRONG}|{WEAK})"

# Nouns of the agent's world: if a weak verb's sentence names one, it is a task
# for the agent ("always add a link to every answer"), not a chore.
AGENT_CUE = re.compile(
    r"\b(?:users?|customers?|clients?|callers?|requesters?|repl(?:y|ies)|respons(?:e|es)|"
    r"answers?|questions?|messages?|e-?mails?|chats?|conversations?|requests?|tickets?|"
    r"tools?|functions?|api|endpoints?|prompts?|summar(?:y|ies)|outputs?|confirmation|"
    r"approval|review|verification|files?|records?|data|accounts?|orders?|refunds?|"
    r"invoices?|payments?|exports?|reports?|links?|urls?|json|markdown|signature|"
    r"competitors?|products?|plan|tier|pricing|fees?|you|asked|english|french|german|"
    r"spanish|italian|language|persona|emojis?|contracts?|profiles?|preferences|"
    r"memor(?:y|ies)|logging|audit|passwords?|credentials?|secrets?|keys|tokens?|"
    r"instructions|system prompt|recommendations?|suggestions?|results?)\b|@|://", re.I)

# The lead-in of a standing rule names an interaction or an agent's task:
# "whenever the user asks", "every time you summarise", "when summarising documents".
INTERACTION = (r"(?:users?|customers?|clients?|anyone|someone|somebody|you|asked|asks|"
               r"the word|messages?|e-?mails?|requests?|questions?|tickets?|conversations?|"
               r"chats?|repl(?:y|ies)|respons(?:e|es)|answers?|summar\w*|answering|replying|"
               r"responding|writing|drafting|booking|searching|generating|translating|"
               r"recommending|handling|processing|reviewing|documents?)")

# Markers that turn an imperative into a standing rule.
PERSIST = (r"always|never(?: ever)?|from now on|from this point(?: on| forward)?|going forward|"
           r"from here on(?:wards?)?|from this moment(?: on)?|as of now|starting (?:now|today)|"
           r"moving forward|henceforth|hereafter|in (?:the )?future|from today(?: on)?|"
           r"until (?:told otherwise|further notice)|by default|no matter what|at all times|"
           r"without exception|as a rule|permanently|under no circumstances(?: should you)?|"
           r"(?:don'?t|do not) ever|at no point|"
           r"(?:for|in) (?:all|every|each|any) (?:future )?(?:repl|respons|answer|message|"
           r"conversation|request|user|customer|session|chat|email)\w*")
# Clauses that open a conditional standing rule ("Whenever …, call …").
WHEN = (r"whenever|every ?time|each time|any ?time|when(?:ever)?|if|for (?:every|each|all|any)|"
        r"in (?:every|each|all)|at the (?:end|start|beginning|top|bottom) of "
        r"(?:every|each|all|any)|"
        r"regardless of|no matter|until|unless|once|whatever|whoever|upon")

# The agent, named: second person or its usual titles.
AGENT = (r"(?:you|the (?:assistant|agent|ai|bot|chatbot|model|llm)|this (?:assistant|agent|"
         r"ai|bot|chatbot|model|llm)|assistants|ai agents|ai models|agents|chatgpt|claude|"
         r"gpt-?\d*)")
# Titles that can only mean the agent (unlike "you" or "the model").
AGENT_NAME = (r"(?:assistants?|ai|a\.i\.|chatgpt|gpt|claude|gemini|copilot|llms?|bots?|chatbots?|"
              r"ai (?:agents?|models?|assistants?)|agents|language models?)")

# Who a fake header claims to be, and what it calls its message.
AUTHORITY = (r"(?:system|sys|developer|dev|admin|administrator|root|operator|owner|supervisor|"
             r"security(?: team)?|it (?:department|team)|headquarters|hq|ciso|cto|compliance|"
             r"anthropic|openai|moderator|sudo|override|directive|"
             rf"(?:{AGENT_NAME}) instructions?|assistant|chatgpt|claude)")

# Things an instruction can be told to drop.
INSTRUCTIONS = (r"(?:instructions?|rules?|directives?|directions?|guidelines?|guidance|prompts?|"
                r"constraints?|restrictions?|guardrails?|polic(?:y|ies)|system (?:message|prompt)|"
                r"context|programming|training|orders|commands|filters?|limitations?|"
                r"safeguards?|protocols?|settings|persona)")
EARLIER = (r"(?:your|all|any|these|those|every|previous|prior|earlier|above|preceding|"
           r"original|initial|old|existing|current|system|safety|content|default|hidden|"
           r"developer|standing)")
DROP = (r"(?:ignor(?:e|ing)|disregard(?:ing)?|forget(?:ting)?|overlook|neglect|override|"
        r"bypass|set aside|pay no attention to|skip|discard|abandon|dismiss|suspend|reset|"
        r"erase|wipe|clear|drop|cancel|revoke|void|scrap|throw (?:away|out)|unlearn|"
        r"(?:don'?t|do not|stop) (?:listen(?:ing)? to|follow(?:ing)?|obey(?:ing)?|heed(?:ing)?)|"
        r"cease following)")

# Where data can be sent to leave the house.
HOST = (r"\b[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,6}\.(?:com|net|org|io|co|ru|cn|xyz|info|"
        r"biz|example|dev|app|me|site|top|tk|uk|de|fr|cc|ws|onion|local|internal)\b")
URL = r"\b[a-z][a-z0-9+.-]{1,9}://\S+"
EMAIL = r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,6}"
IP = r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"
DESTINATION = (rf"(?:{URL}|{EMAIL}|{IP}|{HOST}|\bwebhooks?\b|\b(?:my|our|this) (?:personal |"
               r"private |own |other )?(?:address|e-?mail|inbox|account|server|bucket|drive|"
               r"phone|channel)\b|\b(?:discord|telegram|pastebin|gist)\b|\bthe form at\b)")

# A code-shaped name of a tool: snake_case, `backticked`, call(...), URL or host.
TOOLISH = (rf"(?:`[^`\n]{{1,80}}`|\b[a-z][a-z0-9]*_[a-z0-9_]+\b(?!@)|\b[a-z_]\w*\([^)]{{0,80}}\)|"
           rf"{URL}|{IP}|"
           rf"{HOST}|\bthe (?:tool|plugin|function|api|endpoint|webhook|proxy|server|"
           r"database|db|connection|base url|host|extension|integration|skill|action)s?\b|"
           r"\b(?:tool|plugin|function|endpoint|extension)s? ['\"][^'\"]{1,80}['\"])")

# Credentials and personal data: what disclosure goes after.
PRIVATE = (r"pass(?:word|wd|code|phrase)s?|credentials?|secrets?|(?:api|private|secret|ssh|"
           r"access|signing|encryption|aws) ?keys?|tokens?|cookies?|system prompt|hidden "
           r"(?:reasoning|instructions|prompt)|(?:stored |your |all )memor(?:y|ies)|memory "
           r"contents|internal (?:docs|documents|data)|phone numbers?|(?:home )?addresses|"
           r"home address|ssns?|social security|(?:credit |debit )?card (?:numbers?|details)|"
           r"cvv|iban|bank (?:details|accounts?)|salar(?:y|ies)|dates? of birth|passports?|"
           r"medical records|id_rsa|\.ssh|\.pem|\.aws|\.env|seed phrase|mnemonic")
# What exfiltration goes after: the above, plus the agent's context and stores.
SENSITIVE = re.compile(
    rf"(?:\b|(?=\.))(?:{PRIVATE}|keys|instructions|(?:chat|conversation) (?:history|logs?|"
    r"transcripts?)|history|databases?|db|exports?|dumps?|payroll|sessions?|"
    r"(?:customer|user|personal|patient|employee|client)s?'? (?:e-?mails?|phones?|"
    r"addresses|address|names|locations?|data|records|details|info|list|database)|"
    r"(?:hr|personnel|confidential|internal|private|sensitive|classified|financial|medical|"
    r"legal|board) (?:\w+ )?(?:files|records|documents|docs|data|reports?|minutes|emails)|"
    r"(?:id|identity) (?:cards?|documents?|scans?)|driver'?s licen[cs]es?|tax (?:returns?|"
    r"ids?))\b", re.I)
# Ordinary documents count only in bulk: "forward every invoice", "all contracts".
BULK = re.compile(
    r"\b(?:all|every|each|entire|full|whole|copies of)\b[^.;!?\n]{0,30}?\b(?:e-?mails?|"
    r"messages?|files?|documents?|docs|contracts?|invoices?|receipts?|statements?|records?|"
    r"reports?|attachments?|photos?|spreadsheets?|notes?|logs?|chats?|conversations?|"
    r"customers?|users?|data|confirmations?|orders?|tickets?)\b", re.I)

# The stores a record redirection tells the agent to stop believing.
RECORD = re.compile(
    r"\b(?:profile|crm|erp|records?|recorded|entry|entries|on file|stored|saved|directory|"
    r"listing|databases?|observations?|facts|tenant|scope|memor(?:y|ies))\b|"
    r"\b(?:in|from) the [\w-]+ system\b|"
    r"\b(?:account|user|customer|order|tenant|entity|client)[\s:#-]*[\w-]*\d", re.I)

DECODE_CUE = re.compile(
    r"\b(?:decod\w*|decipher\w*|decrypt\w*|unscrambl\w*|translat\w*|revers\w*|backwards|"
    r"unescap\w*|rot-?13|base-?64|b64|hex\w*|caesar|morse|pig latin|encoded|cipher\w*|"
    r"hidden|obfuscated)\b", re.I)

