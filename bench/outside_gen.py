"""A store generator written from docs/format.md alone, by a helper who had not read
bench/synth.py or tests/storegen.py (stop 62): the shapes an outside party's generator may
have that ours lacks (thousands of sources, hundreds of scopes, summaries citing up to 200
entries, a rolling summary chain thousands long, erasures with certificates, a fifth of the
lines spelled as another writer would). Not a test.

    python bench/outside_gen.py STORE N [--seed S]     # e.g. 1000000: a 2.3 GB log

GEN_FOREIGN=0.2 sets the share of lines spelled otherwise; GEN_NOCITE=1 writes no citations.

Writes STORE/events.jsonl (N events), certificates/ for the erasures, and
STORE.meta.json: the final states of the hot keys, ids of interest, for spot checks.
"""
import hashlib
import json
import os
import random
import sys
from datetime import datetime, timedelta, timezone

ZERO = "0" * 64
FOREIGN = float(os.environ.get("GEN_FOREIGN", "0.2"))
NOCITE = os.environ.get("GEN_NOCITE") == "1"


def canonical(x):
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha(b):
    return hashlib.sha256(b).hexdigest()


# ---- text corpora ---------------------------------------------------------------------------
SCRIPTS = {
    "latin": "The quick brown fox jumps over the lazy dog while the agent remembers the user's preferences. ",
    "diacritics": "Zürich Ærøskøbing Łódź São Paulo Çanakkale Ñuñoa naïve café résumé Đà Nẵng ",
    "cyrillic": "Съешь же ещё этих мягких французских булок да выпей чаю. Пользователь живёт в Москве. ",
    "greek": "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Ο χρήστης προτιμά τον καφέ σκέτο. ",
    "cjk": "我能吞下玻璃而不伤身体。用户喜欢在早上喝咖啡，并且住在上海市浦东新区。 ",
    "japanese": "いろはにほへと ちりぬるを わかよたれそ つねならむ。ユーザーは東京に住んでいます。 ",
    "korean": "다람쥐 헌 쳇바퀴에 타고파. 사용자는 서울에 살고 있습니다. ",
    "arabic": "صِف خَلقَ خَودِ كَمِثلِ الشَمسِ إِذ بَزَغَت. المستخدم يفضل القهوة. ",
    "hebrew": "דג סקרן שט בים מאוכזב ולפתע מצא חברה. המשתמש גר בתל אביב. ",
    "devanagari": "ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले विष्णुवतार भगवान श्रीराम। ",
    "thai": "เป็นมนุษย์สุดประเสริฐเลิศคุณค่า กว่าบรรดาฝูงสัตว์เดรัจฉาน ",
    "emoji": "👩‍💻 uses 🐍 and 🦆; family 👨‍👩‍👧‍👦, flags 🇩🇪🇯🇵, skin 👍🏽, keycap 1️⃣ ",
    "combining": "e\u0301 a\u0308 n\u0303 Z\u0351a\u0352l\u0353g\u0354o\u0355 ",
    "seps": "line\u2028separator and para\u2029separator, tab\there, nbsp\u00a0and zwsp\u200b. ",
}
SCRIPT_NAMES = list(SCRIPTS)


def prose(rng, n):
    """About n characters of text mixing one to three scripts."""
    picks = rng.sample(SCRIPT_NAMES, rng.randint(1, 3))
    out, size = [], 0
    while size < n:
        s = SCRIPTS[rng.choice(picks)]
        i = rng.randrange(len(s))
        piece = s[i:] + s[:i]
        out.append(piece)
        size += len(piece)
    return "".join(out)[:n]


def value(rng):
    r = rng.random()
    if r < 0.15:
        return rng.choice([rng.randint(-10**6, 10**6), rng.random(), True, False, None,
                           rng.randint(-2**62, 2**62), 0.1, 1e-05, 12.5])
    if r < 0.45:
        return prose(rng, rng.randint(1, 40))
    if r < 0.75:
        return prose(rng, rng.randint(40, 500))
    if r < 0.92:
        obj = {"kind": rng.choice(["pref", "fact", "plan", "note"]),
               "text": prose(rng, rng.randint(10, 300)),
               "score": round(rng.random(), rng.randint(1, 6)),
               "tags": [prose(rng, 8) for _ in range(rng.randint(0, 5))]}
        if rng.random() < 0.3:
            obj["nested"] = {"a": [1, 2, {"b": prose(rng, 20)}], "ü": None}
        return obj
    if r < 0.995:
        return prose(rng, rng.randint(2000, 10000))
    return prose(rng, rng.randint(10000, 45000))


OFFSETS = ["Z", "Z", "Z", "+00:00", "+01:00", "-07:00", "+05:30", "+13:45", "-09:30", "+09:00",
           "-00:00", "+14:00", "-12:00"]


def fmt_time(rng, dt):
    """dt an aware UTC datetime; written with an offset, fraction and case that vary."""
    off = rng.choice(OFFSETS)
    if off in ("Z", "+00:00", "-00:00"):
        local, suffix = dt, off
    else:
        sign = 1 if off[0] == "+" else -1
        h, m = int(off[1:3]), int(off[4:6])
        local, suffix = dt + sign * timedelta(hours=h, minutes=m), off
    s = local.strftime("%Y-%m-%dT%H:%M:%S")
    fr = rng.random()
    if fr < 0.2:
        s += "." + "%03d" % (dt.microsecond // 1000)
    elif fr < 0.3:
        s += "." + "%06d" % dt.microsecond
    elif fr < 0.33:
        s += "." + "%06d" % dt.microsecond + "123"   # nanoseconds
    if rng.random() < 0.02:
        s = s.replace("T", "t")
        if suffix == "Z":
            suffix = "z"
    return s + suffix


# ---- foreign spelling of a line ---------------------------------------------------------------
def shuffled(rng, x, depth=0):
    if isinstance(x, dict):
        items = list(x.items())
        rng.shuffle(items)
        return {k: shuffled(rng, v, depth + 1) for k, v in items}
    if isinstance(x, list):
        return [shuffled(rng, v, depth + 1) for v in x]
    return x


def spell(rng, line, style):
    if style == 0:
        return canonical(line)
    obj = shuffled(rng, line) if style & 1 else line
    seps = (", ", ": ") if style & 2 else (",", ":")
    text = json.dumps(obj, sort_keys=not (style & 1), separators=seps, ensure_ascii=bool(style & 4))
    if style & 8:
        text = text.replace("/", "\\/")
    if style & 16 and "\\u" in text:
        # upper-case hex in \u escapes (JSON allows either case)
        import re
        text = re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), text)
    return text.encode("utf-8")


# ---- the generator -----------------------------------------------------------------------------
class Gen:
    def __init__(self, store, n, seed):
        self.rng = random.Random(seed)
        self.store = store
        self.n = n
        self.seq = 0
        self.prev = ZERO
        self.t = datetime(2024, 1, 1, tzinfo=timezone.utc)
        self.entries = {}          # id -> state
        self.seqs = {}             # id -> [seq]
        self.cited_by = {}         # id -> [id]
        self.by_subject = {}       # subject -> [id]
        self.held = []
        self.active = []
        self.quarantined = {}      # id -> status before
        self.erased = set()
        self.redact = {}           # seq -> certificate id
        self.next_id = 0
        rng = self.rng
        self.tenants = ["tenant:%s" % w for w in ["acme", "globex", "initech", "umbrella", "hooli",
                                                  "stark", "wayne", "tyrell", "cyberdyne", "soylent"]]
        self.users = ["user:%d" % i for i in range(3000)]
        self.agents = ["agent:%d" % i for i in range(2000)]
        self.scopes = [""]
        for t in self.tenants:
            self.scopes.append(t)
            for _ in range(40):
                u = rng.choice(self.users)
                self.scopes.append(t + "/" + u)
                if rng.random() < 0.5:
                    self.scopes.append(t + "/" + u + "/project:p%d" % rng.randrange(500))
        deep = "tenant:acme"
        for i in range(30):
            deep += "/s%d:x" % i
        self.scopes.append(deep)           # 31 segments
        self.sources = []
        for i in range(4000):
            c = rng.choice(["user", "agent", "tool", "document", "web", "system", "operator"])
            if c == "user":
                s = rng.choice(self.users)
            elif c == "agent":
                s = rng.choice(self.agents)
            elif c == "web":
                s = "web:%s.example.%s" % (rng.choice(["forum", "news", "wiki", "shop"]) + str(i), rng.choice(["com", "org", "de"]))
            else:
                s = "%s:%s%d" % (c, rng.choice(["crm", "calendar", "mail", "pdf", "ops", "alice", "bob"]), i % 97)
            if rng.random() < 0.4:
                s += "/" + rng.choice(["page/3", "thread 7", "run-%d" % i, "Zürich/übersicht", "a/b/c"])
            self.sources.append(s)
        self.actors = (["agent:%d" % i for i in range(2000)] + ["importer:%s" % w for w in ["mem0", "zep", "letta", "crm-sync"]]
                       + ["operator:%s" % w for w in ["alice", "bob", "s-0042", "ops_7"]]
                       + ["tool:%d/worker" % i for i in range(500)] + ["svc-%d:pod/Ünïcode#%d" % (i, i) for i in range(200)])
        self.contexts = [None] * 5 + [prose(rng, 30) for _ in range(300)]
        self.attributes = ["home_city", "timezone", "language", "diet", "favourite_colour", "employer",
                           "birthday", "preferred_name", "budget", "deadline", "status_note", "title",
                           "allergy", "phone_pref", "meeting_time", "refund_window", "plan", "owner"]
        self.hot_keys = [("user:%d" % i, a) for i, a in zip(range(12), ["home_city", "timezone", "language", "diet",
                                                                        "employer", "budget", "deadline", "plan",
                                                                        "title", "refund_window", "owner", "allergy"])]
        self.hot_ids = []
        self.summary_chain = []
        self.meta = {"hot_keys": [list(k) for k in self.hot_keys], "certificates": []}
        os.makedirs(store, mode=0o700, exist_ok=True)
        os.makedirs(os.path.join(store, "certificates"), mode=0o700, exist_ok=True)
        self.path = os.path.join(store, "events.jsonl")
        self.f = open(self.path, "wb")
        self.styles = {}

    # -- envelope
    def tick(self):
        self.t += timedelta(seconds=self.rng.randint(0, 40), microseconds=self.rng.randrange(10**6))
        return self.t

    def emit(self, events, batch=None, actor=None):
        rng = self.rng
        at_dt = self.tick()
        actor = actor or rng.choice(self.actors)
        out = []
        for ev in events:
            self.seq += 1
            body = {"before": ev["before"], "after": ev["after"], "reason": ev.get("reason"),
                    "salt": "%032x" % rng.getrandbits(128)}
            at = at_dt
            if rng.random() < 0.01:
                at = at_dt - timedelta(seconds=rng.randint(1, 300))   # a writer's clock behind
            line = {"seq": self.seq, "at": fmt_time(rng, at), "actor": actor, "op": ev["op"],
                    "memory_id": ev["after"]["id"], "body": body, "body_digest": sha(canonical(body))}
            if batch is not None or rng.random() < 0.8:
                line["batch"] = batch
            if batch is not None and len(events) > 1:
                line["batch_size"] = len(events)
            if rng.random() < 0.03:
                line["writer"] = rng.choice(["memsvc/2.3", "letta 0.6", "zép"])
            line["prev"] = self.prev
            header = {k: v for k, v in line.items() if k != "body"}
            line["hash"] = self.prev = sha(self.prev.encode() + b"\n" + canonical(header))
            style = 0
            if rng.random() < FOREIGN:
                style = rng.randint(1, 31)
            out.append(spell(rng, line, style))
            mid = line["memory_id"]
            self.seqs.setdefault(mid, []).append(self.seq)
            self.entries[mid] = ev["after"]
        self.f.write(b"".join(x + b"\n" for x in out))

    # -- entries
    def new_id(self):
        self.next_id += 1
        r = self.rng.random()
        if r < 0.7:
            return "m-%07d" % self.next_id
        if r < 0.85:
            return "%08x-%04x-4%03x-a%03x-%012x" % tuple(self.rng.getrandbits(b) for b in (32, 16, 12, 12, 48))
        if r < 0.95:
            return "mem_%d_%s" % (self.next_id, self.rng.choice(["ü", "記憶", "знание", "x"]))
        return "N%d" % self.next_id

    def new_state(self, kind=None, key=None, scope=None, cite=None):
        rng = self.rng
        kind = kind or rng.choices(["observation", "claim", "inference", "summary"], [60, 15, 15, 10])[0]
        if key is None:
            if rng.random() < 0.5:
                ent = rng.choice(self.users)
            else:
                ent = rng.choice(["order-%d" % rng.randrange(20000), "repo:svc", "doc:%d" % rng.randrange(5000),
                                  "Ünïcödé-Entität", "公司:%d" % rng.randrange(100)])
            key = (ent, rng.choice(self.attributes))
        obs = self.t - timedelta(seconds=rng.randint(0, 86400 * 30))
        st = {"id": self.new_id(), "entity": key[0], "attribute": key[1], "value": value(rng), "kind": kind,
              "source": rng.choice(self.sources), "observed_at": fmt_time(rng, obs), "status": "active"}
        # optional fields, sometimes left out, sometimes explicit defaults
        if rng.random() < 0.6:
            st["scope"] = scope if scope is not None else rng.choice(self.scopes)
        elif scope is not None:
            st["scope"] = scope
        if rng.random() < 0.7:
            st["authority"] = rng.choice([0, 1, 2, 3, 4, 5, -1, 100])
        if rng.random() < 0.5:
            st["confidence"] = rng.choice([None, 0, 1, 0.5, round(rng.random(), 3)])
        if rng.random() < 0.4:
            st["layer"] = rng.choice(["episodic", "semantic", "procedural"])
        if rng.random() < 0.3:
            st["valid_from"] = fmt_time(rng, obs + timedelta(days=rng.randint(-400, 400)))
        if rng.random() < 0.2:
            st["valid_to"] = fmt_time(rng, obs + timedelta(days=rng.randint(-30, 900)))   # may precede valid_from
        if rng.random() < 0.5:
            st["subject"] = key[0] if key[0].startswith("user:") else rng.choice(self.users)
        if rng.random() < 0.3:
            st["context"] = rng.choice(self.contexts)
        if rng.random() < 0.05:
            st["expires_at"] = fmt_time(rng, self.t + timedelta(days=rng.randint(-100, 800)))
        if rng.random() < 0.05:
            st["sensitivity"] = rng.choice(["pii", "secret", None])
        if rng.random() < 0.02:
            st["retention"] = "legal_hold"
        if rng.random() < 0.2:
            st["tags"] = [prose(rng, rng.randint(1, 12)) for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.05:
            st["embedding_model"] = "text-emb-3"            # a field of its own
        if NOCITE and cite is None:
            kind = "observation" if kind in ("summary", "inference") else kind
            st["kind"] = kind
        if (kind in ("summary", "inference") or rng.random() < 0.05) and not (NOCITE and cite is None):
            if cite is None:
                k = rng.choice([1, 2, 3, 5, 8, 20, 60, 200]) if kind == "summary" else rng.randint(1, 4)
                pool = self.active if self.active else []
                cite = [rng.choice(pool) for _ in range(min(k, len(pool)))]
                if rng.random() < 0.01:
                    cite.append("missing-%d" % rng.randrange(1000))
            st["justification"] = list(dict.fromkeys(cite))
        elif rng.random() < 0.2:
            st["justification"] = []
        return st

    def index(self, st):
        for c in st.get("justification", []):
            self.cited_by.setdefault(c, []).append(st["id"])
        if st.get("subject"):
            self.by_subject.setdefault(st["subject"], []).append(st["id"])

    def write(self, st=None, batch=None, actor=None):
        st = st or self.new_state()
        self.index(st)
        self.emit([{"op": "write", "before": None, "after": st}], batch, actor)
        self.active.append(st["id"])
        return st["id"]

    def hold(self):
        st = self.new_state()
        st["status"] = "held"
        st["held_reason"] = self.rng.choice(["secret", "rule_from_untrusted_source", "protected_key",
                                             "unsupported_summary", "suppressed_subject"])
        self.index(st)
        self.emit([{"op": "hold", "before": None, "after": st}])
        self.held.append(st["id"])

    def change(self, ids, op, to, reason, batch=None, mutate=None, actor=None):
        evs = []
        for i in ids:
            before = self.entries[i]
            after = dict(before)
            after["status"] = to
            if mutate:
                mutate(after)
            evs.append({"op": op, "before": before, "after": after, "reason": reason})
        if len(evs) > 1 and batch is None:
            batch = "b-%032x" % self.rng.getrandbits(128)
        self.emit(evs, batch, actor)

    def live(self, i):
        return i in self.entries and i not in self.erased

    def update(self, i):
        rng = self.rng

        def m(a):
            a["value"] = value(rng)
            if rng.random() < 0.3:
                a["observed_at"] = fmt_time(rng, self.t)
        self.change([i], "update", self.entries[i]["status"], rng.choice([None, "sync", "user correction"]), mutate=m)

    def descendants(self, roots, limit=300):
        seen, todo = [], list(roots)
        got = set()
        while todo and len(seen) < limit:
            x = todo.pop()
            if x in got or not self.live(x):
                continue
            got.add(x)
            seen.append(x)
            todo.extend(self.cited_by.get(x, []))
        return seen

    def erase(self, subject):
        rng = self.rng
        ids = [i for i in self.by_subject.get(subject, []) if self.live(i)]
        ids = [i for i in ids if self.entries[i].get("subject") == subject]
        ids = self.descendants(ids, limit=5000)
        retained = [i for i in ids if self.entries[i].get("retention") == "legal_hold"]
        ids = [i for i in ids if i not in retained]
        if not ids:
            print("erase: nothing for", subject, len(self.by_subject.get(subject, [])), file=sys.stderr)
            return
        cert_id = "cert-%032x" % rng.getrandbits(128)
        salt = "%032x" % rng.getrandbits(128)
        subject_digest = sha((salt + "\n" + subject).encode())
        redacted = sorted(s for i in ids for s in self.seqs[i])
        by_kind = {}
        for i in ids:
            k = self.entries[i].get("kind")
            by_kind[k] = by_kind.get(k, 0) + 1
        at = fmt_time(rng, self.t)
        cert = {"id": cert_id, "at": at, "operator": "operator:s-0042", "reason": "DSR-%d" % rng.randrange(10**5),
                "subject_digest": subject_digest, "salt": salt,
                "counts": {"entries": len(ids), "events_redacted": len(redacted), "retained": len(retained), **by_kind},
                "erased_ids": sorted(ids), "retained_ids": sorted(retained), "redacted_seqs": redacted,
                "head_before": "%d:%s" % (self.seq, self.prev), "reports_deleted": []}
        cdig = sha(canonical(cert))
        evs = [{"op": "erase", "before": None, "reason": cert["reason"],
                "after": {"id": i, "status": "erased", "certificate": cert_id, "certificate_digest": cdig,
                          "subject_digest": subject_digest, "subject_salt": salt}} for i in ids]
        self.emit(evs, cert_id, "operator:s-0042")
        cert["head_after"] = "%d:%s" % (self.seq, self.prev)
        with open(os.path.join(self.store, "certificates", cert_id + ".json"), "wb") as f:
            f.write(canonical(cert))
        for s in redacted:
            self.redact[s] = cert_id
        for i in ids:
            self.erased.add(i)
        self.meta["certificates"].append({"id": cert_id, "subject": subject, "entries": len(ids), "retained": len(retained)})

    def run(self):
        rng, n = self.rng, self.n
        # hot ids: a few entries that get thousands of updates
        for _ in range(8):
            self.hot_ids.append(self.write())
        while self.seq < n:
            r = rng.random()
            left = n - self.seq
            if r < 0.30:
                self.write()
            elif r < 0.36:
                # supersession on a hot key: a new entry from a source, scope and authority that vary
                key = rng.choice(self.hot_keys)
                u = key[0]
                scope = rng.choice(["", "tenant:acme", "tenant:acme/" + u, "tenant:acme/%s/project:p1" % u, "tenant:globex"])
                st = self.new_state(kind=rng.choices(["observation", "claim", "inference", "summary"], [80, 8, 7, 5])[0],
                                    key=key, scope=scope)
                st["authority"] = rng.choice([1, 2, 3, 3, 4])
                st["subject"] = u
                st.pop("retention", None)
                self.write(st)
            elif r < 0.46:
                i = rng.choice(self.active)
                if self.live(i) and self.entries[i]["status"] in ("active", "held"):
                    self.update(i)
            elif r < 0.51:
                i = rng.choice(self.hot_ids)
                if self.live(i):
                    self.update(i)
            elif r < 0.53:
                # a rolling summary chain: each cites the previous and a few observations
                cite = ([self.summary_chain[-1]] if self.summary_chain else []) + \
                       [rng.choice(self.active) for _ in range(rng.randint(0, 3))]
                st = self.new_state(kind="summary", key=("digest:weekly", "summary"), scope="tenant:acme", cite=cite)
                st.pop("subject", None)
                st.pop("valid_to", None)
                st.pop("retention", None)
                self.summary_chain.append(self.write(st))
            elif r < 0.62:
                self.hold()
            elif r < 0.68 and self.held:
                k = rng.choice([1, 1, 1, 5, 50, 400])
                pick = []
                while self.held and len(pick) < min(k, left):
                    pick.append(self.held.pop(rng.randrange(len(self.held))))
                pick = [i for i in pick if self.live(i) and self.entries[i]["status"] == "held"]
                if pick:
                    if rng.random() < 0.7:
                        self.change(pick, "approve", "active", "reviewed %d" % rng.randrange(999), actor="operator:alice")
                        self.active.extend(pick)
                    else:
                        self.change(pick, "reject", "rejected", "planted", actor="operator:bob")
            elif r < 0.71:
                root = rng.choice(self.active)
                if self.live(root) and self.entries[root]["status"] in ("active", "held"):
                    ids = [i for i in self.descendants([root], limit=min(300, left))
                           if self.entries[i]["status"] in ("active", "held")]
                    for i in ids:
                        self.quarantined[i] = self.entries[i]["status"]
                    self.change(ids, "quarantine", "quarantined", "INC-%d" % rng.randrange(999), actor="operator:ops_7")
            elif r < 0.73 and self.quarantined:
                i = rng.choice(list(self.quarantined))
                if self.live(i) and self.entries[i]["status"] == "quarantined":
                    self.change([i], "release", self.quarantined.pop(i), "false alarm", actor="operator:alice")
                else:
                    self.quarantined.pop(i)
            elif r < 0.75:
                root = rng.choice(self.active)
                if self.live(root) and self.entries[root]["status"] in ("active", "held", "quarantined"):
                    ids = [i for i in self.descendants([root], limit=min(100, left))
                           if self.entries[i]["status"] in ("active", "held", "quarantined")]
                    self.change(ids, "retract", "retracted", "superseded", actor="operator:bob")
            elif r < 0.76:
                i = rng.choice(self.active)
                if self.live(i) and self.entries[i]["status"] == "active":
                    self.change([i], "expire", "expired", "decay job", actor="system:decay" if False else "operator:ops_7")
            elif r < 0.762 and left > 10:
                # an import: one batch of many writes
                k = min(left, rng.choice([2, 10, 100, 1000, 3000]))
                sts = [self.new_state() for _ in range(k)]
                for st in sts:
                    self.index(st)
                self.emit([{"op": "write", "before": None, "after": st} for st in sts],
                          "import-%032x" % rng.getrandbits(128), "importer:mem0")
                self.active.extend(st["id"] for st in sts)
            elif r < 0.7630 and left > 200:
                subject = rng.choice(self.users[12:])     # never a hot-key user
                self.erase(subject)
        self.f.close()
        if self.redact:
            self.rewrite()
        self.meta["hot_ids"] = self.hot_ids
        self.meta["summary_chain_len"] = len(self.summary_chain)
        self.meta["summary_chain_tail"] = self.summary_chain[-1] if self.summary_chain else None
        self.meta["hot_states"] = {}
        for key in self.hot_keys:
            self.meta["hot_states"]["%s|%s" % key] = [st for st in self.entries.values()
                                                      if (st.get("entity"), st.get("attribute")) == key]
        with open(self.store.rstrip("/") + ".meta.json", "w") as f:
            json.dump(self.meta, f, ensure_ascii=False)
        os.chmod(self.path, 0o600)

    def rewrite(self):
        tmp = self.path + ".tmp"
        with open(self.path, "rb") as src, open(tmp, "wb") as dst:
            for n, raw in enumerate(src, 1):
                if n in self.redact:
                    line = json.loads(raw)
                    line["body"] = {"erased": self.redact[n]}
                    raw = canonical(line) + b"\n"
                dst.write(raw)
        os.replace(tmp, self.path)


if __name__ == "__main__":
    store, n = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 5
    Gen(store, n, seed).run()
