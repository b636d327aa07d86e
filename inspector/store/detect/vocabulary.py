"""The shared pieces of the rule_shape patterns: the words and sub-patterns for
where an imperative begins, the agent's verbs, the agent's world, authorities,
standing instructions, destinations, tools, and what exfiltration goes after; and the
action verbs, in English and other languages, whose opening a clause makes the gate model's
imperative features (features.clause_starts)."""

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


# Verbs a sentence opens with when it tells its reader to act (imperative mood).
ACTION_VERBS = frozenset("""
send forward transfer wire pay move copy delete remove erase drop wipe destroy invite add grant
give share upload post publish leak email mail e-mail cc bcc reply respond answer say tell print
output write report state claim declare repeat return insert include append prepend attach embed
execute run call invoke open visit click navigate browse download install launch start stop
disable enable change update set reset modify edit replace rename create make book schedule buy
order purchase subscribe approve reject deny refuse confirm verify ignore disregard forget
overlook skip bypass override obey follow comply act pretend assume behave treat consider
recommend suggest promote advertise praise mention describe summarize summarise translate
list show display reveal disclose expose provide fetch retrieve collect gather extract read
export import dump save store log remember note keep use apply assign mark flag close cancel
withdraw deposit sell transmit relay deliver notify inform contact message text dm ping
encode decode reverse concatenate append redirect route respond rate rank review vote sign
ask decline accept allow authorize authorise connect hand put tag quote rsvp request point mirror
""".split()) | frozenset(
    # the same commands in other languages that put the verb first (imperative forms)
    """envoie envoyez transfère transférez transmets transmettez supprime supprimez efface effacez
ignore ignorez oublie oubliez ajoute ajoutez partage partagez publie publiez écris écrivez dis
dites réponds répondez affiche affichez révèle révélez donne donnez exécute exécutez ouvre ouvrez
clique cliquez télécharge téléchargez installe installez change changez modifie modifiez remplace
remplacez annule annulez approuve approuvez confirme confirmez copie copiez paye payez vire virez
invite invitez mets mettez recommande recommandez indique indiquez fais faites montre montrez
envía envíe envíen envia reenvía transfiere transfiera borra borre elimina elimine ignora ignoren
olvida olvide agrega agregue añade añada comparte comparta publica publique escribe escriba
diga responde responda muestra muestre revela revele ejecuta ejecute abre abra haz haga
cambia cambie modifica modifique reemplaza reemplace cancela cancele aprueba apruebe confirma
copia paga pague invita recomienda recomiende incluye incluya manda mande
envie encaminhe transfira apague exclua esqueça adicione compartilhe escreva mostre execute faça
altere mude substitua aprove pague convide recomende inclua
invia inviate inoltra trasferisci cancella ignorate dimentica aggiungi condividi pubblica scrivi
rispondi mostra rivela esegui apri fai sostituisci annulla approva conferma consiglia includi
sende sendet schicke schick schickt leite überweise lösche löscht entferne ignoriere ignoriert
vergiss vergesst füge teile veröffentliche schreibe schreib sag sage antworte zeige zeig gib
führe öffne klicke ändere ersetze storniere genehmige bestätige kopiere zahle empfiehl
stuur verstuur verwijder negeer vergeet voeg deel publiceer schrijf zeg antwoord toon geef voer
klik wijzig vervang annuleer keur bevestig kopieer betaal
skicka radera ignorera glöm lägg dela publicera skriv säg svara visa avslöja ge kör öppna ändra
ersätt avbryt godkänn bekräfta kopiera betala bjud rekommendera
wyślij prześlij przelej usuń zignoruj zapomnij dodaj udostępnij opublikuj napisz powiedz
odpowiedz pokaż ujawnij daj wykonaj otwórz zmień zastąp anuluj zatwierdź potwierdź skopiuj
zapłać zaproś poleć
отправь отправьте перешли перешлите переведи переведите удали удалите игнорируй игнорируйте
забудь забудьте добавь добавьте поделись опубликуй напиши напишите скажи скажите ответь
ответьте покажи покажите раскрой выведи выведите дай дайте выполни выполните открой откройте
измени измените замени отмени подтверди скопируй оплати пригласи порекомендуй включи
надішли надішліть видали видаліть ігноруй забудь додай поділись опублікуй напиши скажи
відповідай покажи розкрий виведи дай виконай відкрий зміни заміни скасуй підтверди скопіюй
оплати запроси порекомендуй
kirim kirimkan hapus abaikan lupakan tambahkan bagikan tulis katakan balas tampilkan berikan
jalankan buka ubah ganti batalkan setujui salin bayar undang
ارسل أرسل احذف تجاهل انس اكتب قل أخبر اعرض افتح غير ادفع
hãy gửi xóa""".split())
