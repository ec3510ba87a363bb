from datetime import UTC, datetime, timedelta

import pytest
from memhive.v1 import audit_pb2
from memhive_contracts.audit_mapping import audit_from_pb, audit_to_pb
from memhive_contracts.codec import decode, encode
from memhive_domain.audit import AuditAction, AuditEntry, Outcome, audit_query
from memhive_domain.errors import InvalidInput
from memhive_domain.principals import Principal, Role

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
AGENT = Principal("ws", "bot", Role.AGENT, "team-a", "ada", credential="token:0123456789abcdef")


def entry(**fields) -> AuditEntry:
    base = AuditEntry.of("e1", AGENT, AuditAction.SAVE, "m1", Outcome.OK, NOW)
    return AuditEntry(**({f: getattr(base, f) for f in base.__slots__} | fields))


def test_an_entry_names_the_principal_and_its_credential() -> None:
    e = entry()
    assert (e.user_id, e.role, e.credential, e.acting_for) == (
        "bot",
        "agent",
        "token:0123456789abcdef",
        "ada",
    )


def test_an_entry_survives_the_wire() -> None:
    e = entry(outcome=Outcome.DENIED, detail="a viewer may not save")
    assert audit_from_pb(decode(encode(audit_to_pb(e)), audit_pb2.AuditRecorded)) == e


def test_filters_match_user_or_credential_target_and_time() -> None:
    e = entry()
    assert audit_query(None, "bot", None, None, None, 10).matches(e)
    assert audit_query(None, "token:0123456789abcdef", "m1", None, None, 10).matches(e)
    assert not audit_query(None, "ada", None, None, None, 10).matches(e)
    assert not audit_query(None, None, "m2", None, None, 10).matches(e)
    assert audit_query(None, None, None, NOW, NOW + timedelta(seconds=1), 10).matches(e)
    assert not audit_query(None, None, None, None, NOW, 10).matches(e)


def test_a_bad_query_names_each_field() -> None:
    with pytest.raises(InvalidInput) as refused:
        audit_query("delete_everything", None, None, datetime(2026, 1, 1), None, 0)
    assert {p.field for p in refused.value.problems} == {"action", "since", "limit"}
