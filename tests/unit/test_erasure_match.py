"""What erasing a data subject takes (DESIGN §6): each way an entry can be about the subject,
alone — its subject, its entity, a segment of its entity, a segment of its scope, its source
principal — beside near misses that match none of them, and what derives from them."""

from __future__ import annotations

import pytest

from storegen import entry, write_store
from inspector.store import gate
from inspector.store.actions import Request
from inspector.store.errors import BadInput
from inspector.store.load import Store
from inspector.store.queries import sql
from inspector.store.registry import ACTIONS

SUBJECT = "user:42"
PLAIN = {"entity": "acct", "scope": "t:a", "source": "tool:x", "subject": None}
ENTRIES = [
    # matched, each by one route only
    ("BY_SUBJECT", {"subject": SUBJECT}),
    ("BY_ENTITY", {"entity": SUBJECT}),
    ("BY_ENTITY_SEGMENT", {"entity": f"tenant:acme/{SUBJECT}"}),
    ("BY_SCOPE_SEGMENT", {"scope": f"t:a/{SUBJECT}/project:p"}),
    ("BY_PRINCIPAL", {"source": f"{SUBJECT}/chat"}),
    # near misses: the text is there, never as a whole segment, subject or principal
    ("NEAR_SUBJECT", {"subject": "user:420"}),
    ("NEAR_ENTITY", {"entity": "user:4"}),
    ("NEAR_ENTITY_SEGMENT", {"entity": "tenant:acme/user:42x"}),
    ("NEAR_SCOPE", {"scope": "t:a/user:420/project:p"}),
    ("NEAR_PRINCIPAL", {"source": "tool:user:42"}),
    ("OTHER", {"subject": "user:7", "entity": "user:7", "source": "user:7/chat",
               "scope": "t:a/user:7"}),
]
MATCHED = sorted(name for name, _ in ENTRIES if name.startswith("BY_"))


@pytest.fixture
def store(tmp_path) -> Store:
    events = [("2025-01-01T00:00:00Z", "write",
               entry(name, attribute=name.lower(), value=f"v-{name}", **{**PLAIN, **fields}))
              for name, fields in ENTRIES]
    events.append(("2025-01-01T00:00:01Z", "write", entry(
        "DERIVED", attribute="derived", kind="summary", value="v-derived",
        justification=["BY_PRINCIPAL", "OTHER"], **PLAIN)))
    events.append(("2025-01-01T00:00:02Z", "write", entry(
        "DERIVED2", attribute="derived2", kind="summary", value="v-derived2",
        justification=["DERIVED"], **PLAIN)))
    loaded = Store(write_store(tmp_path / "s", events), warn=False)
    yield loaded
    loaded.close()


def firsts(store: Store, name: str, **params) -> list:
    return [r[0] for r in store.con.execute(sql(name), params).fetchall()]


def test_each_route_matches_alone_and_no_near_miss_does(store):
    assert firsts(store, "erase_match", subject=SUBJECT) == MATCHED


def test_the_other_subject_matches_only_its_own_entry(store):
    assert firsts(store, "erase_match", subject="user:7") == ["OTHER"]
    assert firsts(store, "erase_match", subject="user:4") == ["NEAR_ENTITY"]
    assert firsts(store, "erase_match", subject="tool:user:42") == ["NEAR_PRINCIPAL"]


def test_descendants_are_followed_through_summaries(store):
    assert firsts(store, "erase_descendants", ids=["BY_PRINCIPAL"]) == ["DERIVED", "DERIVED2"]
    assert firsts(store, "erase_descendants", ids=["DERIVED"]) == ["DERIVED2"]
    assert firsts(store, "erase_descendants", ids=["BY_SUBJECT"]) == []


def test_the_plan_erases_the_matches_and_what_derives_from_them(store):
    plan = ACTIONS["erase"].plan(store, Request("erase", "DSR-42", "dana", subject=SUBJECT))
    assert plan.erased == sorted(MATCHED + ["DERIVED", "DERIVED2"])
    assert plan.retained == []
    assert plan.counts == {"entries": 7, "events_redacted": 7, "retained": 0, "observation": 5,
                           "summary": 2}


# -- the suppression list (DESIGN §6) -----------------------------------------------------------

def suppressed(store: Store) -> list[tuple]:
    return store.con.execute(sql("suppressed_subjects")).fetchall()


def test_only_an_erasure_by_subject_adds_to_the_suppression_list(store):
    erase = ACTIONS["erase"]
    erase.apply(store, erase.plan(store, Request("erase", "INC-1", "dana", ("NEAR_SUBJECT",))))
    assert suppressed(store) == []                       # by id: no subject, no digest
    done = erase.apply(store, erase.plan(store, Request("erase", "DSR-42", "dana", subject=SUBJECT)))
    [(salt, digest)] = suppressed(store)                 # one pair for the 7 erase events
    assert (salt, digest) == (done.salt, gate.subject_digest(done.salt, SUBJECT))


def test_a_state_carrying_digest_fields_adds_nothing(tmp_path):
    salt = "00" * 16
    forged = entry("F", value="x", subject_digest=gate.subject_digest(salt, "user:1"), subject_salt=salt)
    loaded = Store(write_store(tmp_path / "f", [("2025-01-01T00:00:00Z", "write", forged)]), warn=False)
    assert suppressed(loaded) == []
    loaded.close()


# -- what the reason may not quote (DESIGN §6), read from the events themselves -------------------

@pytest.fixture
def texts_store(tmp_path) -> Store:
    from inspector.store.append import LogWriter, event_draft
    from inspector.store.logfile import store_paths
    root = write_store(tmp_path / "t", [("2025-01-01T00:00:00Z", "write", entry(
        "T1", subject=SUBJECT, value="plain", ticket_note="zephyr-hollow"))])   # an unknown field
    before = entry("T1", subject=SUBJECT, value="plain", ticket_note="zephyr-hollow")
    draft = event_draft("update", "T1", "agent:1", before=before, after={**before, "value": "later"},
                        reason="moved after the Lisbon fair")
    draft["body"]["channel"] = "pager-duty-west"                                # an unknown body field
    with LogWriter(store_paths(root)) as writer:
        writer.append([draft])
    loaded = Store(root, warn=False)
    yield loaded
    loaded.close()


@pytest.mark.parametrize("reason, what", [
    ("DSR-1 re zephyr-hollow", "a field of an entry"),
    ("DSR-1 moved after the LISBON fair", "an earlier reason"),
    ("DSR-1 via pager-duty-west", "a field of an event"),
    ("DSR-1 value later", "a value"),
])
def test_the_reason_may_not_quote_any_text_of_the_events(texts_store, reason, what):
    from inspector.store.errors import Refused
    with pytest.raises(Refused, match=f"the reason quotes {what} being erased"):
        ACTIONS["erase"].plan(texts_store, Request("erase", reason, "dana", subject=SUBJECT))


def test_the_salt_of_an_event_is_no_text_of_it(texts_store):
    import json
    salt = json.loads((texts_store.root / "events.jsonl").read_bytes().splitlines()[0])["body"]["salt"]
    plan = ACTIONS["erase"].plan(texts_store, Request("erase", f"DSR-1 {salt}", "dana", subject=SUBJECT))
    assert plan.erased == ["T1"]


@pytest.mark.parametrize("reason, refused", [
    ("request of user 42", "the reason names the subject"),
    ("per User: 42's request", "the reason names the subject"),
    ("USER_42 asked", "the reason names the subject"),
    ("user42", "the reason names the subject"),
    ("DSR-1 re zephyr hollow", "the reason quotes a field of an entry being erased"),
    ("DSR-1 moved after the Lisbon-fair", "the reason quotes an earlier reason being erased"),
    ("DSR-1 re zephyrhollow", "the reason quotes a field of an entry being erased"),
    ("DSR-42", None),                     # a ticket number is not the subject
    ("DSR-1 zephyr", None),               # one word of a longer text is not the text
    ("DSR-9 user 4210 follow-up", None),  # another user
    ("ticket SU-42 closed", None),        # words are never glued across the reason's separators
])
def test_a_respelled_subject_or_text_is_still_refused(texts_store, reason, refused):
    from inspector.store.errors import Refused
    request = Request("erase", reason, "dana", subject=SUBJECT)
    if refused is None:
        assert ACTIONS["erase"].plan(texts_store, request).erased == ["T1"]
    else:
        with pytest.raises(Refused, match=refused):
            ACTIONS["erase"].plan(texts_store, request)


@pytest.mark.parametrize("reason, refused", [
    ("12 Baker Street", True),            # the probe's: accepted, and kept in the certificate
    ("DSR-7: baker street", True),
    ("moved, London NW1", True),
    ("NW1", True),                        # letters and digits: says something on its own
    ("code 463820 leaked", True),         # six digits or more
    ("DSR-7 after the Lisbon fair", True),
    ("DSR-7", False),
    ("DSR-2025-117 street", False),       # one common word; a year and a ticket's number
    ("DSR-7 from London", False),         # one word without digits is not caught (a limit)
    ("DSR-7: user asked", False),         # two words of the value, 9 letters: too common
    ("DSR-7: the user", False),
    ("Baker\u200bStreet", True),         # helper-66: a zero-width space for the space
    ("DSR-7 BakerStreet", True),          # no separator at all
    ("Baker\u2060Street, London", True),  # a word joiner
    ("DSR-7 theuser", False),             # run together, still under 10 letters
])
def test_a_reason_may_not_quote_part_of_an_erased_value(tmp_path, reason, refused):
    """Two or more words in a row of an erased value or context (10 letters or more), or a word
    of it with digits in it, are refused in the reason, which stays in the log and the
    certificate: only the whole value was refused before."""
    from inspector.store.errors import Refused
    root = write_store(tmp_path / "p", [("2025-01-01T00:00:00Z", "write", entry(
        "P1", subject=SUBJECT, value="12 Baker Street, London NW1; code 463820, the user asked",
        context="met at the Lisbon fair"))])
    store = Store(root, warn=False)
    request = Request("erase", reason, "dana", subject=SUBJECT)
    if refused:
        with pytest.raises(Refused, match="the reason quotes part of a (value|context) being erased"):
            ACTIONS["erase"].plan(store, request)
    else:
        assert ACTIONS["erase"].plan(store, request).erased == ["P1"]
    store.close()


@pytest.mark.parametrize("reason, refused", [
    ("DSR2291 ends 4455", True),          # four digits of a phone number (helper-64: accepted)
    ("DSR sam.k", True),                  # an address's name (helper-64: accepted)
    ("re: sam.k.", True),
    ("DSR-2025-118", False),              # a year is not a code
    ("DSR samuel", False),
    ("DSR-7", False),
])
def test_a_reason_may_not_quote_four_digits_or_an_address_s_name(tmp_path, reason, refused):
    from inspector.store.errors import Refused
    root = write_store(tmp_path / "p", [("2025-01-01T00:00:00Z", "write", entry(
        "P1", subject=SUBJECT, value="new number ends 4455 (since 2025); write to sam.k@example.org"))])
    store = Store(root, warn=False)
    request = Request("erase", reason, "dana", subject=SUBJECT)
    if refused:
        with pytest.raises(Refused, match="the reason quotes part of a value being erased"):
            ACTIONS["erase"].plan(store, request)
    else:
        assert ACTIONS["erase"].plan(store, request).erased == ["P1"]
    store.close()


SPELLINGS = [("N1", "user:zo\u00eb"), ("N2", "user:zoe\u0308"), ("N3", "User:Zo\u00eb"),
             ("N4", " user:zo\u00eb"), ("N5", "user:zo\u200b\u00eb"),
             ("N6", "\uff55\uff53\uff45\uff52:zo\u00eb"), ("N7", "user:zoe")]


def test_the_subject_spelled_otherwise_is_said_and_never_taken_unasked(tmp_path):
    """Erasure matches the subject as written (the certificate's digest is of it): an NFD
    twin, another case, a space, a zero-width space or full-width letters escaped it without a
    word (probe, stop 46). They are named now; "user:zoe" is another name."""
    from inspector.store.errors import Refused
    root = write_store(tmp_path / "z", [("2025-01-01T00:00:00Z", "write", entry(
        m, entity="acct", attribute=f"a{i}", subject=subject)) for i, (m, subject) in enumerate(SPELLINGS)])
    store = Store(root, warn=False)
    plan = ACTIONS["erase"].plan(store, Request("erase", "DSR-7", "dana", subject="user:zo\u00eb"))
    assert (plan.erased, plan.spelled_otherwise) == (["N1"], ["N2", "N3", "N4", "N5", "N6"])
    assert plan.warnings == [
        "5 entries name the subject spelled otherwise (case, width, Unicode form, spaces or "
        "invisible characters), and this erasure does not take them: N2 N3 N4 N5 N6; if they "
        "are about the same person, erase them too by id (`inspector erase STORE ID… --reason …`)"]
    with pytest.raises(Refused) as refused:
        ACTIONS["erase"].plan(store, Request("erase", "DSR-7", "dana", subject="USER:ZOE"))
    assert str(refused.value) == (
        "nothing to erase: no live entry matches (retained under legal hold: 0); 1 entry names "
        "the subject spelled otherwise (case, width, Unicode form, spaces or invisible "
        "characters): N7: erase them by id if they are about this person; nothing written")
    assert ACTIONS["erase"].plan(store, Request("erase", "DSR-7", "dana", subject="user:zoe")).warnings == []
    store.close()


def test_a_name_with_a_filler_or_a_braille_blank_is_the_subject_spelled_otherwise(tmp_path):
    """Hangul fillers and the braille blank are drawn as nothing or as a blank, and NFKC keeps
    them: `user:7` + U+2800 (as subject, entity or a scope segment) was neither erased nor named
    (helper-72)."""
    spellings = [("F1", {"subject": "user:7\u3164"}), ("F2", {"subject": "user:7\u115f"}),
                 ("F3", {"subject": "user:7\uffa0"}), ("F4", {"subject": "user:7\u2800"}),
                 ("F5", {"subject": "\u2800user:7"}), ("F6", {"entity": "user:7\u2800"}),
                 ("F7", {"scope": "org:1/user:7\u2800"}), ("F8", {"subject": "user:7\u2800x"}),
                 ("F9", {"subject": "user:7"})]
    root = write_store(tmp_path / "f", [("2025-01-01T00:00:00Z", "write", entry(
        m, **{"entity": "acct", "attribute": f"a{i}", **fields}))
        for i, (m, fields) in enumerate(spellings)])
    store = Store(root, warn=False)
    plan = ACTIONS["erase"].plan(store, Request("erase", "DSR-7", "dana", subject="user:7"))
    assert (plan.erased, plan.spelled_otherwise) == (["F9"], ["F1", "F2", "F3", "F4", "F5", "F6", "F7"])
    store.close()


def test_a_later_write_naming_the_erased_subject_spelled_otherwise_is_held():
    """After `user:7` is erased, `USER:7` or `user:7` + a zero-width space or a filler was
    written as active (helper-72): the gate also tries each name folded."""
    suppression = gate.Suppression({("s", gate.subject_digest("s", "user:7"))})
    for name in ("user:7", "USER:7", "user:7\u200b", "user:7\u3164", "\uff55ser:7", " user:7"):
        assert gate.judge(entry("S", subject=name), suppression).reason == gate.SUPPRESSED, name
    assert gate.judge(entry("S", entity=f"org:1/USER:7"), suppression).reason == gate.SUPPRESSED
    for name in ("user:70", "user:7x", "user 7"):
        assert gate.judge(entry("S", subject=name), suppression) is None, name


def test_a_reason_may_name_the_kind_of_data_erased(tmp_path):
    """An attribute, a scope or a source names a kind of data: "remove the home city" is a
    reason; only the exact text ("home_city") is refused."""
    from inspector.store.errors import Refused
    root = write_store(tmp_path / "k", [("2025-01-01T00:00:00Z", "write", entry(
        "K1", subject=SUBJECT, attribute="home_city", value="Lisbon"))])
    loaded = Store(root, warn=False)
    plan = ACTIONS["erase"].plan(loaded, Request("erase", "DSR-3: remove the home city", "dana",
                                                 subject=SUBJECT))
    assert plan.erased == ["K1"]
    with pytest.raises(Refused, match="the reason quotes an attribute being erased"):
        ACTIONS["erase"].plan(loaded, Request("erase", "DSR-3 home_city", "dana", subject=SUBJECT))
    loaded.close()


def test_a_kept_events_reason_that_quotes_an_erased_value_refuses_the_erasure(tmp_path):
    """H6's address quoted in the reason of X1's quarantine (one batch, two entries): erasing
    H6's subject would keep the address in X1's event, so it is refused, naming seq and id,
    and nothing is written; once X1 is erased too, the subject's erasure goes through and no
    line of the log holds the address."""
    from inspector.store.errors import Refused
    address = "sam.k@example.org"
    store_path = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("H6", entity="user:42", attribute="email",
                                                 value=address, subject="user:42")),
        ("2025-01-01T00:00:01Z", "write", entry("X1", entity="user:99", attribute="email",
                                                 value="other@example.org", subject="user:99")),
        ("2025-01-01T00:00:02Z", "write", entry("Y1", entity="user:99", attribute="note",
                                                 value="unrelated", subject="user:99")),
    ])
    erase, quarantine = ACTIONS["erase"], ACTIONS["quarantine"]
    store = Store(store_path, warn=False)
    quarantine.apply(store, quarantine.plan(store, Request(
        "quarantine", "both bounced: SAM.K@example.org", "dana", ("H6", "X1"))))
    quarantine.apply(store, quarantine.plan(store, Request("quarantine", "spam", "dana", ("Y1",))))
    store.close()
    log = (store_path / "events.jsonl").read_bytes()
    store = Store(store_path, warn=False)
    with pytest.raises(Refused) as refused:
        erase.plan(store, Request("erase", "DSR-42", "dana", subject="user:42"))
    store.close()
    assert str(refused.value) == (
        "the reasons of seq 5 (X1) quote what this erasure takes, and those events are kept: "
        f"erase those entries first if they must go (`inspector erase {store_path} X1 --reason "
        "…`), then this; nothing written")
    assert (store_path / "events.jsonl").read_bytes() == log
    for request in (Request("erase", "INC-9", "dana", ("X1",)),
                    Request("erase", "DSR-42", "dana", subject="user:42")):
        store = Store(store_path, warn=False)
        erase.apply(store, erase.plan(store, request))
        store.close()
    assert address.encode() not in (store_path / "events.jsonl").read_bytes().lower()


@pytest.mark.parametrize("kept_reason, refused", [
    ("both bounced: ZQXJ-phone-5550100 (zq77)", True),     # helper-68: part of Z2's value
    ("both bounced: 5550100", True),                        # a marked word of it alone
    ("write to zed.q, both bounced", True),                 # an address's name
    ("both bounced: phone after", False),                   # two common words, 10 letters short
    ("both bounced, INC-4", False),
])
def test_a_kept_events_reason_that_quotes_part_of_an_erased_value_refuses_the_erasure(
        tmp_path, kept_reason, refused):
    """Another entry's event keeps its reason through the erasure: the parts of an erased value
    the erasure's own reason may not quote, it may not either (only a whole quote was refused,
    and the phone number stayed in the log of a store whose certificate said it was whole)."""
    from inspector.store.errors import Refused
    store_path = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("Z2", entity="user:zq77", attribute="contact",
                                                 value="call ZQXJ-phone-5550100 after 6pm, "
                                                       "or zed.q@example.org",
                                                 subject="user:zq77")),
        ("2025-01-01T00:00:01Z", "write", entry("O2", entity="user:other", attribute="contact",
                                                 value="call 555-0199", subject="user:other")),
    ])
    store = Store(store_path, warn=False)
    quarantine = ACTIONS["quarantine"]
    quarantine.apply(store, quarantine.plan(store, Request("quarantine", kept_reason, "dana",
                                                           ("Z2", "O2"))))
    store.close()
    log = (store_path / "events.jsonl").read_bytes()
    store = Store(store_path, warn=False)
    request = Request("erase", "DSR-9", "dana", subject="user:zq77")
    if refused:
        with pytest.raises(Refused, match=r"^the reasons of seq 4 \(O2\) quote what this erasure"):
            ACTIONS["erase"].plan(store, request)
        assert (store_path / "events.jsonl").read_bytes() == log
    else:
        assert ACTIONS["erase"].plan(store, request).erased == ["Z2"]
    store.close()


def test_a_malformed_entry_matches_by_the_fields_it_has(tmp_path):
    """Another writer's entry with no entity loads as malformed; its subject or scope still
    names the data subject, and the erasure takes it (helper-68: it was left whole, value and
    all, without a word)."""
    no_entity = {k: v for k, v in entry("M1", attribute="note", value="ZQXJ-malformed-1",
                                        scope="user:zq77", subject="user:zq77").items()
                 if k != "entity"}
    scoped = {k: v for k, v in entry("M2", attribute="note", value="v", scope="t:a/user:zq77").items()
              if k != "entity"}
    other = {k: v for k, v in entry("M3", attribute="note", value="v", scope="user:zq78").items()
             if k != "entity"}
    store_path = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", e)
                                              for e in (no_entity, scoped, other)])
    store = Store(store_path, warn=False)
    assert firsts(store, "erase_match", subject="user:zq77") == ["M1", "M2"]
    plan = ACTIONS["erase"].plan(store, Request("erase", "DSR-9", "dana", subject="user:zq77"))
    ACTIONS["erase"].apply(store, plan)
    store.close()
    assert plan.erased == ["M1", "M2"]
    assert b"ZQXJ" not in (store_path / "events.jsonl").read_bytes()


def test_an_erasure_says_when_the_subject_is_an_events_actor(tmp_path):
    """The envelope keeps the actor through an erasure (DESIGN §6): `ingest --actor user:zq77`
    left the subject's name in every event it wrote, and the erasure said nothing (helper-68
    #5). It says how many events name it; another actor is not counted."""
    store_path = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("Z1", entity="user:zq77", subject="user:zq77")),
        ("2025-01-01T00:00:01Z", "write", entry("Z2", entity="user:zq77", attribute="b",
                                                 subject="user:zq77")),
    ], actor="user:zq77/phone")
    other = write_store(tmp_path / "o", [
        ("2025-01-01T00:00:00Z", "write", entry("Z1", entity="user:zq77", subject="user:zq77"))],
        actor="agent:1")
    request = Request("erase", "DSR-9", "dana", subject="user:zq77")
    store = Store(store_path, warn=False)
    assert ACTIONS["erase"].plan(store, request).warnings == [
        "2 events name the subject as their actor: the actor is part of the envelope, which the "
        "chain keeps, so the subject's name stays there (`inspector audit --log` lists them); "
        "write with an opaque actor id"]
    store.close()
    store = Store(other, warn=False)
    assert ACTIONS["erase"].plan(store, request).warnings == []
    store.close()


def test_a_dry_run_given_no_reason_judges_no_placeholder(tmp_path):
    """A dry run given no --reason plans with a placeholder, "(dry run: no reason given)": a
    subject that it holds ("dry", "run", "given") was refused as named by the reason (helper-66
    #5). The real reason is still judged when the erasure is applied."""
    from inspector.cli.actions import DRY_REASON
    from inspector.store.errors import Refused
    root = write_store(tmp_path / "d", [("2025-01-01T00:00:00Z", "write", entry(
        "D1", entity="dry", subject="dry", value="v"))])
    store = Store(root, warn=False)
    pending = Request("erase", DRY_REASON, "dana", subject="dry", reason_pending=True)
    assert ACTIONS["erase"].plan(store, pending).erased == ["D1"]
    with pytest.raises(Refused, match="the reason names the subject"):
        ACTIONS["erase"].plan(store, Request("erase", "dry run", "dana", subject="dry"))
    store.close()


@pytest.mark.parametrize("reason", ["\u200b", " \u200b\u2060 ", "\ufeff", "\u3164", "\u115f\u1160",
                                    "\u2800", "\uffa0 \u17b4"])
def test_a_reason_of_invisible_characters_alone_is_no_reason(tmp_path, reason):
    """A Hangul filler or a braille blank alone (drawn as nothing, or as a blank) was taken as a
    reason, and the audit log kept a reason that says nothing (hostile5 #3)."""
    from inspector.store.errors import BadInput
    from inspector.store.actions import check_reason
    with pytest.raises(BadInput, match="--reason is required and must not be empty"):
        check_reason(Request("quarantine", reason, "dana", ("X",)))


def test_an_id_spelled_otherwise_is_said_and_never_taken_unasked(tmp_path):
    """Two ids drawn alike on every screen, `M-café` in NFC and in NFD: the data owner typed the
    id they saw (NFC) and the erasure took the other entry, saying `erased: M-café`, while the
    person's entry stayed whole without a word (hostile5 #2). Now the plan names the ids that
    read as one given, escaped so they can be told apart, and never takes them."""
    nfc, nfd, wide = "M-caf\u00e9", "M-cafe\u0301", "\uff2d-caf\u00e9"
    root = write_store(tmp_path / "i", [("2025-01-01T00:00:00Z", "write", entry(
        m, entity="acct", attribute=f"a{i}", value=v)) for i, (m, v) in enumerate(
        [(nfc, "order note"), (nfd, "lives at 5 Zq Lane"), (wide, "x"), ("M-cafe", "y")])])
    store = Store(root, warn=False)
    plan = ACTIONS["erase"].plan(store, Request("erase", "DSR-7", "dana", ids=(nfc,)))
    assert (plan.erased, plan.ids_spelled_otherwise) == ([nfc], [nfd, wide])
    assert plan.warnings == [
        "2 other entries have ids that read as one given but spelled otherwise (case, width, "
        "Unicode form, spaces or invisible characters), and this erasure does not take them: "
        "'M-cafe\\u0301', '\\uff2d-caf\\xe9'; check which entry you meant (`inspector show STORE ID`)"]
    assert ACTIONS["erase"].plan(store, Request("erase", "DSR-7", "dana", ids=("M-cafe",))).warnings == []
    store.close()
    other = write_store(tmp_path / "j", [("2025-01-01T00:00:00Z", "write", entry(
        nfd, entity="acct", attribute="a", value="v"))])
    store = Store(other, warn=False)
    with pytest.raises(BadInput) as missing:
        ACTIONS["erase"].plan(store, Request("erase", "DSR-7", "dana", ids=(nfc,)))
    assert str(missing.value) == (f"{nfc}: not found in {other} (an id spelled otherwise: "
                                  "'M-cafe\\u0301'); nothing written")
    store.close()


def test_only_ids_that_can_fold_alike_are_folded(tmp_path):
    """other_ids folded every id with a character outside ASCII in Python (700,000 of them: 2.6 s
    an action). The query now leaves out an id whose ASCII letters and digits cannot all be in
    the wanted id's folded form; an id upper-cased and decomposed (`M-CAFE` + U+0301) is still
    one of them, and so said."""
    from inspector.store.actions import other_ids
    nfc, upper_nfd = "M-caf\u00e9", "M-CAFE\u0301"
    others = ["Q-caf\u00e9", "M-caf\u00e9-2", "\u65e5\u672c-1"]
    root = write_store(tmp_path / "i", [("2025-01-01T00:00:00Z", "write", entry(
        m, entity="acct", attribute=f"a{i}", value="v")) for i, m in enumerate([nfc, upper_nfd, *others])])
    store = Store(root, warn=False)
    found = [i for (i,) in store.con.execute(sql("erase_id_spellings"),
                                             {"ids": [nfc], "letters": "[acefm]*"}).fetchall()]
    assert found == sorted([nfc, upper_nfd])
    assert other_ids(store, [nfc], []) == [upper_nfd]
    store.close()
