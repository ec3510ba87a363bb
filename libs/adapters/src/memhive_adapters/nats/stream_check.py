"""For processes whose bus user may not declare streams: check that the admin did."""

from __future__ import annotations

from memhive_contracts import streams
from nats.js import JetStreamContext
from nats.js.errors import BucketNotFoundError, NotFoundError


class StreamsNotDeclared(RuntimeError):
    """A stream or bucket is missing or lacks subjects: `memhive declare-streams` (with the
    admin user's credentials) declares them."""


async def require_streams(js: JetStreamContext) -> None:
    for spec in streams.STREAMS:
        try:
            config = (await js.stream_info(spec.name)).config
        except NotFoundError:
            raise StreamsNotDeclared(_advice(f"stream {spec.name} does not exist")) from None
        missing = sorted(set(spec.subjects) - set(config.subjects or ()))
        if missing:
            raise StreamsNotDeclared(_advice(f"stream {spec.name} lacks subjects {missing}"))
    buckets = (
        streams.MEMORIES_BUCKET,
        streams.TOKENS_BUCKET,
        streams.BULLETINS_BUCKET,
        streams.SPEND_BUCKET,
        streams.LANES_BUCKET,
        streams.KV_BUCKET,
    )  # not the hook sessions': without them a session may see a memory twice (the adapter)
    for bucket in buckets:
        try:
            await js.key_value(bucket)
        except BucketNotFoundError:
            raise StreamsNotDeclared(_advice(f"KV bucket {bucket} does not exist")) from None


def _advice(problem: str) -> str:
    return f"{problem}; run `memhive declare-streams` with the bus admin's credentials"
