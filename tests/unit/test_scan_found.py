"""scan's findings kept packed as the scan goes (scan.Found): the order and the answer are
those of sorting every finding at the end, which is what scan did before."""

from inspector.store.scan import Found, Finding

ODD = "M\x1f2\n"          # a separator and a newline: kept exactly, never read as a boundary


def test_found_gives_each_finding_once_highest_severity_first_then_rule_id_message():
    found = Found()
    found.add([Finding("validity.expired_active", "M9", "expired"),
               Finding("belief.contested", "M5", "b"),
               Finding("belief.contested", "M5", "a")])
    found.add([])
    found.add(f for f in [Finding("secret.value", "M7", "key"),
                          Finding("belief.contested", ODD, "é ✓"),
                          Finding("belief.contested", "M5", "a"),         # a step run again
                          Finding("scope.leak", "M1", "leak")])
    expected = [("scope.leak", "M1", "leak"), ("secret.value", "M7", "key"),
                ("belief.contested", ODD, "é ✓"),                       # "\x1f" < "5"
                ("belief.contested", "M5", "a"), ("belief.contested", "M5", "b"),
                ("validity.expired_active", "M9", "expired")]
    assert [(f.rule, f.memory_id, f.message) for f in found] == expected
    assert [(f.rule, f.memory_id, f.message) for f in found] == expected     # read again
    assert [f.severity for f in found] == ["high", "high", "medium", "medium", "medium", "low"]


def test_at_or_above_asks_the_rules_found():
    found = Found()
    assert not found.at_or_above("low")
    found.add([Finding("belief.contested", "M5", "a")])
    assert (found.at_or_above("low"), found.at_or_above("medium"), found.at_or_above("high")) \
        == (True, True, False)
    found.add([Finding("entry.malformed", "M6", "bad")])
    assert found.at_or_above("high")
