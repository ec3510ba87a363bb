"""The bus accounting's subject classes: ids folded away, reads and writes by who asked."""

from __future__ import annotations

from types import SimpleNamespace

from bench.cost_accounting import median_round, render, reply_kind, subject_class


def a_report(bus: dict[str, float], **more: float) -> dict:
    """A save-only report (no recall measured) with these messages per save."""
    return {
        "size": 2000,
        "recall": {"p50_ms": 0.0, "cpu_ms": {}},
        "save": {"per_s": 40.0, "cpu_ms": {"memhive": 24.0}},
        "bus": bus,
        **more,
    }


def test_ids_inboxes_and_keys_fold_into_one_class_each() -> None:
    assert subject_class("_INBOX_query.AbC.123", None) == "<inbox>"
    assert subject_class("$JS.ACK.MEMHIVE.embed.1.2.3.4.5", None) == "$JS.ACK.<consumer>"
    assert (
        subject_class("$JS.API.CONSUMER.MSG.NEXT.MEMHIVE.ingest", "_INBOX_ingest.x")
        == "$JS.API.CONSUMER.MSG.NEXT.MEMHIVE.<durable>"
    )
    assert subject_class("memhive.evt.memory.saved.dev", None) == "memhive.evt.memory.saved.dev"


def test_record_reads_and_writes_name_the_service_that_asked() -> None:
    read = "$JS.API.STREAM.MSG.GET.KV_memhive_memories"
    assert subject_class(read, "_INBOX_bulletin.x.y") == f"{read} (by bulletin)"
    many = "$JS.API.DIRECT.GET.KV_memhive_memories"  # a batch of keys in one request
    assert subject_class(many, "_INBOX_gateway.x.7") == f"{many} (by gateway)"
    write = subject_class("$KV.memhive_memories.dev.0193", "_INBOX_ingest.z")
    assert write == "$KV.memhive_memories.<key> (by ingest)"


def test_render_lists_each_process_once_and_the_messages_per_save() -> None:
    report = {
        "size": 2000,
        "recall": {"p50_ms": 20.0, "cpu_ms": {"memhive": 17.0, "nats-server": 7.0}},
        "save": {"per_s": 40.0, "cpu_ms": {"memhive": 24.0, "ingest (child)": 5.0}},
        "bus": {"<inbox>": 40.0, "$JS.ACK.<consumer>": 6.0},
    }
    text = render(report)
    assert "| memhive | 17.0 | 24.0 |" in text
    assert "| ingest (child) | 0.0 | 5.0 |" in text
    assert "Bus messages per save: 46.0" in text


def test_the_advisories_the_counter_causes_are_listed_but_not_counted() -> None:
    # nats-server publishes an API audit advisory only where someone listens: here, the
    # counter's own subscription to ">".
    report = a_report({"<inbox> (PubAck)": 5.0, "$JS.EVENT.ADVISORY.API": 1.1})
    text = render(report)
    assert "Bus messages per save: 5.0 (advisories" in text
    assert "not counted: 1.10;" in text
    assert "| 1.10 | `$JS.EVENT.ADVISORY.API` |" in text


def test_idle_heartbeats_are_told_apart_and_listed_but_not_counted() -> None:
    heartbeat = SimpleNamespace(
        subject="_INBOX_embed.abc",
        headers={"Status": "100", "Description": "Idle Heartbeat"},
        data=b"",
    )
    timeout = SimpleNamespace(subject="_INBOX_embed.abc", headers={"Status": "408"}, data=b"")
    assert reply_kind(heartbeat) == " (an idle heartbeat)"
    assert reply_kind(timeout) == " (a status: end of a direct get, a pull's timeout)"
    report = a_report(
        {
            "<inbox> (PubAck)": 5.0,
            "<inbox> (an idle heartbeat)": 0.2,
            "<inbox> (a status: end of a direct get, a pull's timeout)": 0.1,
        }
    )
    text = render(report)
    assert "Bus messages per save: 5.1 (" in text
    assert (
        "idle heartbeats, sent by the clock while a consumer has nothing, not counted: 0.20)"
        in text
    )
    assert "| 0.20 | `<inbox> (an idle heartbeat)` |" in text


def test_the_link_commands_per_save_are_told_not_counted_as_messages() -> None:
    report = a_report({"<inbox> (PubAck)": 5.0}, links=0.12)
    text = render(report)
    assert "Bus messages per save: 5.0 " in text
    assert "what 0.12 `LinkMemories` commands of the link classifier per save set off" in text


def test_a_record_in_a_reply_names_the_service_whose_inbox_it_reached() -> None:
    direct = SimpleNamespace(
        subject="_INBOX_bulletin.abc.7",
        headers={"Nats-Stream": "KV_memhive_memories", "Nats-Sequence": "9"},
        data=b"record",
    )
    assert reply_kind(direct) == " (a record, direct get of KV_memhive_memories, to bulletin)"
    by_leader = SimpleNamespace(
        subject="_INBOX_query.abc",
        headers=None,
        data=b'{"type":"io.nats.jetstream.api.v1.stream_msg_get_response"}',
    )
    assert reply_kind(by_leader) == " (a record, MSG.GET, to query)"


def test_small_classes_are_summed_in_one_row_and_counted() -> None:
    report = a_report(
        {
            "<inbox> (PubAck)": 5.0,
            "$JS.API.CONSUMER.INFO.MEMHIVE.<durable>": 0.04,
            "memhive.cmd.memory.link.dev": 0.02,
        }
    )
    text = render(report)
    assert "Bus messages per save: 5.1 (" in text
    assert "| 0.06 | 2 smaller classes |" in text
    assert subject_class("$JS.API.CONSUMER.INFO.MEMHIVE.embed", "_INBOX_embed.x") == (
        "$JS.API.CONSUMER.INFO.MEMHIVE.<durable>"
    )


def test_the_round_shown_is_the_one_whose_save_costs_the_median_number_of_passes() -> None:
    rounds = [
        {"per_s": 1.0, "cpu_ms": {"total (stack)": 9.0}, "pass_ms": 3.0, "passes": 3.0},
        {"per_s": 2.0, "cpu_ms": {"total (stack)": 8.0}, "pass_ms": 4.0, "passes": 2.0},
        {"per_s": 3.0, "cpu_ms": {"total (stack)": 10.0}, "pass_ms": 4.0, "passes": 2.5},
    ]
    assert median_round(rounds)["per_s"] == 3.0
    assert median_round(rounds[:2])["per_s"] == 2.0  # of two, the cheaper


def test_every_rounds_passes_are_rendered_beside_the_one_shown() -> None:
    report = a_report({"<inbox> (PubAck)": 5.0}, encoder_pass_ms=4.0)
    report["save"]["cpu_ms"]["total (stack)"] = 10.0
    text = render(report | {"rounds": [2.25, 2.5, 2.75]})
    assert "A save: 2.50 passes" in text
    assert "3 rounds, each held to the pass measured beside it: 2.25, 2.50, 2.75" in text
    assert "rounds, each" not in render(report | {"rounds": [2.5]})
