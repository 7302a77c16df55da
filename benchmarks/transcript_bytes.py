"""Where a transcript's bytes go: per line type and per field, as written and as they read.

    .venv/bin/python benchmarks/transcript_bytes.py [--fields N] [--against DIR] [FILE...]

For each file (default: ``transcripts/*.jsonl``) and for all together: the bytes on disk
per line type (a sealed line counted under the type of the event it holds), the bytes
of the same lines in the clear (a sealed line opened, its padding left out, with the key its end line reveals;
a packed file's lines inflated), and the fields that hold most of the clear bytes. With
``--against DIR`` (an older checkout's ``transcripts/``), the files both have are set side
by side: bytes there, here, and how many times smaller.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from gm_engine.transcripts.format import STREAMED, WHOLE_WRITES
from gm_engine.transcripts.packing import PACKED_FORMAT, LineUnpacker
from gm_engine.transcripts.sealing import GameKey, blob_place, chunk_place, event_place, write_place

ROOT = Path(__file__).resolve().parent.parent


def _size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def measure(
    path: Path, disk: Counter[str], clear: Counter[str], lines: Counter[str], fields: Counter[str]
) -> None:
    """Add ``path``'s bytes to the counters (by line type; ``fields`` by ``type.field``)."""
    rows = path.read_bytes().split(b"\n")[:-1]
    header, end = json.loads(rows[0]), json.loads(rows[-1])
    middle: list[tuple[bytes, int]] = []  # each clear line with its share of the disk bytes
    if header.get("format") == PACKED_FORMAT:
        unpacker = LineUnpacker()
        for row in rows[1:-1]:
            inflated = [line[:-1] for line, _ in unpacker.lines(row + b"\n")]
            for line in inflated:  # a packed line's bytes shared by its lines as their clear sizes
                middle.append((line, round((len(row) + 1) * len(line) / sum(map(len, inflated)))))
        disk["(packed lines)"] += sum(len(row) + 1 for row in rows[1:-1])
    else:
        middle = [(row, len(row) + 1) for row in rows[1:-1]]
    sealing = header.get("sealing") if header.get("format") != PACKED_FORMAT else None
    key = GameKey.from_hex(sealing["key_id"], end["key"]) if sealing else None
    commitment = header["seed_sha256"]
    whole = header.get("format", 0) == WHOLE_WRITES  # a sealed line holds an event and its blobs
    if key is not None and header.get("format", 0) >= STREAMED:  # chunks of one stream
        _measure_stream(rows, key, commitment, disk, clear, lines, fields)
        return
    for raw, on_disk in [(rows[0], len(rows[0]) + 1), *middle, (rows[-1], len(rows[-1]) + 1)]:
        obj: dict[str, Any] = json.loads(raw)
        kind = obj["type"]
        if "box" in obj and key is not None and whole:
            plain = key.open_padded(obj["box"], write_place(commitment, obj["seq"]))
            inner_lines = [json.loads(line) for line in plain.split(b"\n")]
            label = f"{inner_lines[-1]['type']} (sealed)"
            disk[label] += on_disk
            clear[label] += len(plain)
            lines[label] += 1
            for inner in inner_lines:
                for name, value in inner.items():
                    fields[f"{inner['type']}.{name}"] += _size(value)
            continue
        if "box" in obj and key is not None:
            if kind == "blob":
                place = blob_place(commitment, obj["id"])
            else:
                place = event_place(commitment, obj["seq"])
            plain = key.open(obj["box"], place).rstrip(b" ")
            inner = json.loads(plain)
            kind = "blob" if kind == "blob" else inner["type"]
            label, size, content = f"{kind} (sealed)", len(plain), inner
        else:
            label, size, content = kind, len(raw) + 1, obj
        disk[label] += on_disk
        clear[label] += size
        lines[label] += 1
        for name, value in content.items():
            fields[f"{kind}.{name}"] += _size(value)


def _measure_stream(
    rows: list[bytes],
    key: GameKey,
    commitment: str,
    disk: Counter[str],
    clear: Counter[str],
    lines: Counter[str],
    fields: Counter[str],
) -> None:
    """A running format-7 file: the chunks' bytes on disk, the stream's lines in the clear."""
    header, end = rows[0], rows[-1]
    for label, raw in (("header", header), ("end", end)):
        disk[label] += len(raw) + 1
        clear[label] += len(raw) + 1
        lines[label] += 1
    stream = b""
    for row in rows[1:-1]:
        obj = json.loads(row)
        disk["(chunks)"] += len(row) + 1
        lines["(chunks)"] += 1
        stream += key.open_padded(obj["box"], chunk_place(commitment, obj["seq"]))[1:]
    for text in stream.split(b"\n")[:-1]:
        inner = json.loads(text)
        label = f"{inner['type']} (in the stream)"
        clear[label] += len(text) + 1
        lines[label] += 1
        for name, value in inner.items():
            fields[f"{inner['type']}.{name}"] += _size(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--fields", type=int, default=15)
    parser.add_argument("--against", type=Path)
    args = parser.parse_args(argv)
    files = args.files or sorted((ROOT / "transcripts").glob("*.jsonl"))
    disk: Counter[str] = Counter()
    clear: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    fields: Counter[str] = Counter()
    for path in files:
        measure(path, disk, clear, lines, fields)
    print(f"{'line type':28} {'lines':>7} {'on disk':>10} {'in the clear':>13}")
    for label in sorted(lines, key=lambda name: -clear[name]):
        print(f"{label:28} {lines[label]:7d} {disk[label]:10,d} {clear[label]:13,d}")
    if disk["(packed lines)"]:
        print(f"{'(packed lines, all types)':28} {'':7} {disk['(packed lines)']:10,d}")
    total = sum(path.stat().st_size for path in files)
    print(f"{'total':28} {sum(lines.values()):7d} {total:10,d} {sum(clear.values()):13,d}")
    print(f"\nthe {args.fields} fields holding most clear bytes (the JSON of their values):")
    for name, size in fields.most_common(args.fields):
        print(f"  {name:40} {size:10,d}")
    if args.against is not None:
        print(f"\nagainst {args.against}:")
        there_total = here_total = 0
        for path in files:
            old = args.against / path.name
            if old.exists():
                there, here = old.stat().st_size, path.stat().st_size
                there_total, here_total = there_total + there, here_total + here
                print(f"  {path.name:40} {there:10,d} -> {here:9,d}  {there / here:5.2f}x smaller")
        if here_total:
            ratio = there_total / here_total
            print(f"  {'together':40} {there_total:10,d} -> {here_total:9,d}  {ratio:5.2f}x smaller")
    return 0


if __name__ == "__main__":
    sys.exit(main())
