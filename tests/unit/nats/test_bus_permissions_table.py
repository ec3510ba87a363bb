"""The bus permission table: what each user may do, and the configs rendered from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from memhive_adapters.nats.server_config import (
    ConfiguredUser,
    render_deployment_config,
    render_server_config,
)
from memhive_bulletin import app as bulletin_app
from memhive_contracts import bus_permissions as perms
from memhive_embed import app as embed_app
from memhive_ingest import app as ingest_app
from memhive_link_classifier import app as link_app

ROOT = Path(__file__).resolve().parents[3]


def test_the_durables_in_the_table_are_the_services_own() -> None:
    assert set(perms.DURABLES[perms.INGEST]) == {
        ingest_app.COMMANDS_DURABLE,
        ingest_app.UPSTREAM_DURABLE,
        ingest_app.ACTIVITY_DURABLE,
    }
    assert perms.DURABLES[perms.EMBED] == (embed_app.DURABLE,)
    assert perms.DURABLES[perms.LINK_CLASSIFIER] == (link_app.DURABLE,)
    assert perms.DURABLES[perms.BULLETIN] == (bulletin_app.DURABLE,)


@pytest.mark.parametrize("user", [u for u in perms.SERVICES if u != perms.ADMIN])
def test_a_service_listens_on_its_own_inbox_and_on_no_wildcard_of_everything(user: str) -> None:
    p = perms.SERVICES[user]
    everything = {">", "memhive.>", "_INBOX.>", "$JS.API.>", "$KV.>"}
    assert not everything & set(p.publish) and not everything & set(p.subscribe)
    inboxes = [s for s in p.subscribe if s.startswith("_INBOX")]
    assert inboxes == [f"_INBOX_{user}.>"]


def _writers(bucket: str) -> set[str]:
    return {u for u, p in perms.SERVICES.items() if f"$KV.{bucket}.>" in p.publish} - {perms.ADMIN}


def test_only_ingest_and_the_gateway_write_the_record_and_only_ingest_the_tokens() -> None:
    """The gateway creates the records of the saves it is asked for and ingest writes every
    other change; the gateway reads and watches tokens but asks ingest (the token responder)
    to change them (docs/architecture.md, "The bus"); no other service touches tokens."""
    assert _writers("memhive_memories") == {perms.INGEST, perms.QUERY}
    assert _writers("memhive_tokens") == {perms.INGEST}
    readers = {u for u, p in perms.SERVICES.items()
               if any("KV_memhive_tokens" in s and ".STREAM.INFO." not in s
                      for s in p.publish)} - {perms.ADMIN}  # fmt: skip
    assert readers == {perms.QUERY, perms.INGEST}


def test_only_the_gateway_touches_key_value_memory() -> None:
    assert _writers("memhive_kv") == {perms.QUERY}
    readers = {u for u, p in perms.SERVICES.items()
               if any("KV_memhive_kv" in s and ".STREAM.INFO." not in s
                      for s in p.publish)} - {perms.ADMIN}  # fmt: skip
    assert readers == {perms.QUERY}


def test_exactly_the_llm_consumers_count_spend_on_the_bus() -> None:
    """Link classifier, bulletin prose and the gateway's consolidation summaries each share a
    spend bound across their replicas (docs/architecture.md, "The link classifier")."""
    assert _writers("memhive_spend") == {perms.QUERY, perms.LINK_CLASSIFIER, perms.BULLETIN}


def test_the_gateway_asks_for_token_changes_and_only_ingest_answers_them() -> None:
    requests = "memhive.admin.tokens.*"
    assert requests in perms.SERVICES[perms.QUERY].publish
    answering = {u for u, p in perms.SERVICES.items() if requests in p.subscribe}
    assert answering - {perms.ADMIN} == {perms.INGEST}
    assert perms.SERVICES[perms.INGEST].allow_responses


def test_a_hook_may_publish_its_workspaces_upstream_events_and_nothing_else() -> None:
    hook = perms.hook("acme")
    assert hook.publish == ("memhive.upstream.*.*.acme",)
    assert hook.subscribe == ("_INBOX_hook_acme.>",)
    assert not hook.allow_responses


def test_a_configured_user_has_an_nkey_or_a_password_variable() -> None:
    with pytest.raises(ValueError, match="either"):
        ConfiguredUser(perms.hook("a"))
    with pytest.raises(ValueError, match="either"):
        ConfiguredUser(perms.hook("a"), nkey="UABC", password_env="X")


def test_the_embedded_config_holds_public_keys_and_the_pid_file() -> None:
    text = render_server_config(
        [ConfiguredUser(perms.hook("acme"), nkey="UAPUBLIC")], pid_file=Path("/d/nats.pid")
    )
    assert 'pid_file: "/d/nats.pid"' in text
    assert 'nkey: "UAPUBLIC"' in text and '"memhive.upstream.*.*.acme",' in text


def test_the_deployment_config_is_fresh() -> None:
    checked_in = (ROOT / "deploy" / "nats" / "nats-server.conf").read_text()
    assert checked_in == render_deployment_config(), "regenerate it: make bus-config"


# docs/architecture.md's table of bus users says what the code grants (a drift once left
# `cmd.memory.update.*` out of the gateway's row).

BUCKETS = ("memhive_memories", "memhive_tokens", "memhive_bulletins", "memhive_products",
           "memhive_spend", "memhive_lanes", "memhive_kv")  # fmt: skip


def _doc_rows() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text[text.index("## The bus: users and permissions") :]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    return {c[0].strip("`").replace("hook_<ws>", perms.HOOK): c[1:] for c in cells}


def _named(cell: str) -> list[str]:
    """The backticked names of a cell, braces expanded: `a.{b,c}.*` -> a.b.*, a.c.*."""
    names = []
    for name in re.findall(r"`([^`]+)`", cell):
        head, brace, rest = name.partition("{")
        options, _, tail = rest.partition("}")
        names += [head + o + tail for o in options.split(",")] if brace else [name]
    return names


def _core(subjects: tuple[str, ...]) -> set[str]:
    return {s.removeprefix("memhive.") for s in subjects if s.startswith("memhive.")}


def _permissions(user: str) -> perms.BusPermissions:
    return perms.hook("<ws>") if user == perms.HOOK else perms.SERVICES[user]


def test_the_doc_table_has_a_row_per_bus_user() -> None:
    assert set(_doc_rows()) == set(perms.SERVICES) | {perms.HOOK}
    assert perms.SERVICES[perms.ADMIN] == perms.BusPermissions(perms.ADMIN, (">",), (">",))


@pytest.mark.parametrize("user", [u for u in (*perms.SERVICES, perms.HOOK) if u != perms.ADMIN])
def test_the_doc_table_names_each_users_subjects(user: str) -> None:
    publishes, subscribes = (re.sub(r"\([^)]*\)", "", c) for c in _doc_rows()[user][:2])
    p = _permissions(user)  # parentheses hold remarks: "(queue `embed`)"
    assert set(_named(publishes)) == _core(p.publish)
    assert set(_named(subscribes)) == _core(p.subscribe)
    assert ("replies" in publishes) == p.allow_responses


@pytest.mark.parametrize("user", [u for u in (*perms.SERVICES, perms.HOOK) if u != perms.ADMIN])
def test_the_doc_table_names_each_users_buckets_and_streams(user: str) -> None:
    granted = set(_permissions(user).publish)
    js = "$JS.API"
    doc: dict[str, set[str]] = {"reads": set(), "writes": set(), "watches": set()}
    readers, gets, durables = set(), set(), set()
    for clause in _doc_rows()[user][2].split(";"):
        verbs, names = clause.split("`")[0], _named(clause)
        for verb in doc:
            if verb in verbs:
                doc[verb] |= {n for n in names if n in BUCKETS}
        if "readers on" in verbs or "durable" in verbs:
            readers |= {n for n in names if n.isupper() or n.startswith("KV_")}
        if "durable" in verbs:
            durables |= {n for n in names if not (n.isupper() or n.startswith("KV_"))}
        if "gets from" in verbs:
            gets |= set(names)
    assert doc["reads"] == {b for b in BUCKETS if f"{js}.DIRECT.GET.KV_{b}" in granted}
    assert doc["writes"] == {b for b in BUCKETS if f"$KV.{b}.>" in granted}
    assert doc["watches"] == {b for b in BUCKETS if f"$JS.FC.KV_{b}.>" in granted}
    watched = {f"KV_{b}" for b in doc["watches"]}
    consumed = {s.rsplit(".", 1)[1] for s in granted if s.count(".") == 4
                and s.startswith(f"{js}.CONSUMER.CREATE.")}  # fmt: skip
    assert readers == consumed - watched
    assert gets == {s.rsplit(".", 1)[1] for s in granted
                    if s.startswith(f"{js}.DIRECT.GET.M") and s.count(".") == 4}  # fmt: skip
    assert durables == set(perms.DURABLES.get(user, ()))
