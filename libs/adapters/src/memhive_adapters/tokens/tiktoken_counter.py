"""TokenCounter with tiktoken's cl100k_base, loaded offline from the copy litellm ships.

tiktoken fetches its encodings from the internet on first use; memhive runs with the network
closed, so the BPE ranks are read from litellm's bundled file (the one litellm itself points
TIKTOKEN_CACHE_DIR at), checked against tiktoken's published hash. litellm is located without
being imported: importing it is slow and changes process environment variables.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
from functools import cache
from pathlib import Path

import tiktoken
from tiktoken_ext.openai_public import (
    ENDOFPROMPT,
    ENDOFTEXT,
    FIM_MIDDLE,
    FIM_PREFIX,
    FIM_SUFFIX,
)

ENCODING = "cl100k_base"
# tiktoken caches an encoding under sha1(url); litellm ships cl100k_base under that name.
BUNDLED_FILE = Path("litellm_core_utils", "tokenizers", "9b5ad71b2ce5302211f9c61530b329a4922fc6a4")
EXPECTED_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# tiktoken_ext.openai_public.cl100k_base() holds these inline next to a download.
PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
SPECIAL_TOKENS = {
    ENDOFTEXT: 100257,
    FIM_PREFIX: 100258,
    FIM_MIDDLE: 100259,
    FIM_SUFFIX: 100260,
    ENDOFPROMPT: 100276,
}


class TiktokenCounter:
    """cl100k_base token counts (the GPT-4 family's tokenizer), never touching the network."""

    name = ENCODING

    def __init__(self, ranks_file: Path | None = None) -> None:
        self._encoding = _encoding(ranks_file or bundled_ranks_file())

    def count(self, text: str) -> int:
        # encode_ordinary: a body that contains "<|endoftext|>" is text, not a control token.
        return len(self._encoding.encode_ordinary(text))


def bundled_ranks_file() -> Path:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("litellm is not installed: no bundled cl100k_base ranks")
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_FILE
    if not path.is_file():
        raise FileNotFoundError(f"cl100k_base ranks not found at {path}")
    return path


@cache
def _encoding(ranks_file: Path) -> tiktoken.Encoding:
    return tiktoken.Encoding(
        name=ENCODING,
        pat_str=PATTERN,
        mergeable_ranks=_ranks(ranks_file.read_bytes()),
        special_tokens=SPECIAL_TOKENS,
    )


def _ranks(data: bytes) -> dict[bytes, int]:
    if hashlib.sha256(data).hexdigest() != EXPECTED_SHA256:
        raise ValueError("the cl100k_base ranks file does not match tiktoken's published hash")
    pairs = (line.split() for line in data.splitlines() if line)
    return {base64.b64decode(token): int(rank) for token, rank in pairs}
