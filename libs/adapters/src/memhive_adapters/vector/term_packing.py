"""A memory's document terms in one compact payload string: a float32 scale (the strongest
weight), the word ids as uint16 and the weights as uint8 fractions of the scale, base64.
Three bytes a word (256 words: ~1 KiB of base64) instead of a JSON list of pairs; BERT's
vocabulary (30,522 words) fits uint16. A weight comes back within scale / 510 of itself."""

from __future__ import annotations

import base64
import math

import numpy as np
from memhive_ports import DocumentTerms

_SCALE = np.dtype("<f4")
_IDS = np.dtype("<u2")
_LEVELS = 255
MAX_WORD_ID = int(np.iinfo(_IDS).max)


def pack_terms(terms: DocumentTerms) -> str:
    """Raises ValueError for an id outside uint16 or a weight that is negative or not finite."""
    ids = np.asarray(terms.word_ids, dtype=np.int64)
    weights = np.asarray(terms.weights, dtype=np.float64)
    _check(ids, weights)
    scale = float(weights.max()) if weights.size else 0.0
    levels = np.zeros(weights.size) if scale == 0 else np.rint(weights / scale * _LEVELS)
    raw = (
        np.array([scale], dtype=_SCALE).tobytes()
        + ids.astype(_IDS).tobytes()
        + levels.astype(np.uint8).tobytes()
    )
    return base64.b64encode(raw).decode("ascii")


def unpack_terms(packed: str) -> DocumentTerms:
    """Raises ValueError for a string pack_terms did not make."""
    raw = base64.b64decode(packed, validate=True)
    words, rest = divmod(len(raw) - _SCALE.itemsize, _IDS.itemsize + 1)
    if words < 0 or rest:
        raise ValueError(f"packed terms of {len(raw)} bytes are not a scale and whole words")
    scale = float(np.frombuffer(raw, _SCALE, 1)[0])
    ids = np.frombuffer(raw, _IDS, words, offset=_SCALE.itemsize)
    levels = np.frombuffer(raw, np.uint8, words, offset=_SCALE.itemsize + ids.nbytes)
    weights = levels.astype(np.float64) * (scale / _LEVELS)
    return DocumentTerms(tuple(ids.tolist()), tuple(weights.tolist()))


def quantisation_error(terms: DocumentTerms) -> float:
    """The most a weight can move in a round trip (half a level), plus float32's rounding
    of the scale (relative, and absolute below float32's smallest normal number)."""
    scale = max(terms.weights, default=0.0)
    return scale / (2 * _LEVELS) + scale * 2e-7 + float(np.finfo(_SCALE).tiny)


def _check(ids: np.ndarray, weights: np.ndarray) -> None:
    if ids.shape != weights.shape:
        raise ValueError("word ids and weights differ in length")
    if ids.size and (ids.min() < 0 or ids.max() > MAX_WORD_ID):
        raise ValueError(f"word ids must be in 0..{MAX_WORD_ID}")
    if not all(math.isfinite(w) and w >= 0 for w in weights.tolist()):
        raise ValueError("weights must be finite and not negative")
