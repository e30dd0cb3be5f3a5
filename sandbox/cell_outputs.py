"""What a notebook cell's outputs may hold when they leave the sandbox: part of the wire's vocabulary.

A notebook runs wholly inside its sandbox (``sandbox.inside.notebook_runner``); what comes back is
the outputs of its cells, which the student's kernel wrote. Both sides apply the same
allow-list: the sandbox to keep its reply small, the host because the sandbox's word is
worth nothing (``clean_outputs`` is the check, on the trusted side, of whatever arrived).

Kept: ``stream`` text on stdout or stderr, ``text/plain`` and PNG images of results and
displays, and errors as text. Everything else (HTML, JavaScript, SVG, widget views,
Markdown, metadata, transient fields) is dropped: it would run in whoever opens the notebook.
Text is made printable and capped, per cell and for the whole notebook.
"""

from __future__ import annotations

import re
from typing import Any

from sandbox.protocol import printable

# What one cell keeps of its text outputs, and of a traceback.
MAX_CELL_OUTPUT_CHARS = 16_000
MAX_TRACEBACK_CHARS = 4_000
MAX_IMAGE_CHARS = 512 * 2**10  # of a PNG image, base64-encoded
# What the whole notebook keeps: a notebook of 50,000 chatty cells still makes a small reply.
MAX_NOTEBOOK_TEXT_CHARS = 2 * 2**20
MAX_NOTEBOOK_IMAGE_CHARS = 8 * 2**20
MAX_OUTPUTS_PER_CELL = 100
STREAM_NAMES = ("stdout", "stderr")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\n]*")
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def clean_text(value: Any, limit: int, *, keep: str = "start") -> str:
    """Text from the kernel made printable (no ANSI colours) and capped at ``limit`` characters."""
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        value = "".join(value)  # nbformat's multiline strings
    text = value if isinstance(value, str) else ""
    text = printable(_ANSI_ESCAPE.sub("", text[: 4 * limit + 4096]))
    if len(text) > limit:
        text = "…" + text[-limit:] if keep == "end" else text[:limit] + "…"
    return text


def execution_count(value: Any) -> int | None:
    return value if type(value) is int and 0 < value < 10**6 else None


class OutputBudget:
    """What a whole notebook may still keep, shared by its cells."""

    def __init__(self) -> None:
        self.text = MAX_NOTEBOOK_TEXT_CHARS
        self.images = MAX_NOTEBOOK_IMAGE_CHARS


def clean_outputs(outputs: Any, budget: OutputBudget | None = None) -> list[dict[str, Any]]:
    """The outputs of one cell, rebuilt from what the allow-list keeps (plain nbformat v4 dicts).

    ``outputs`` may be anything at all; what is not an output of a kept kind is dropped.
    """
    budget = budget or OutputBudget()
    kept: list[dict[str, Any]] = []
    room = min(MAX_CELL_OUTPUT_CHARS, budget.text)
    for output in outputs[:MAX_OUTPUTS_PER_CELL] if isinstance(outputs, list) else ():
        if not isinstance(output, dict) or room <= 0:
            continue
        kind = output.get("output_type")
        if kind == "stream":
            name = output.get("name")
            text = clean_text(output.get("text"), room)
            if name in STREAM_NAMES and text:
                kept.append({"output_type": "stream", "name": name, "text": text})
                room -= len(text)
        elif kind in ("execute_result", "display_data"):
            found = output.get("data")
            data: dict[str, Any] = found if isinstance(found, dict) else {}
            kept_data: dict[str, str] = {}
            if isinstance(data.get("text/plain"), (str, list)):
                kept_data["text/plain"] = clean_text(data["text/plain"], room)
                room -= len(kept_data["text/plain"])
            image = data.get("image/png")
            if (
                isinstance(image, str)
                and len(image) <= min(MAX_IMAGE_CHARS, budget.images)
                and _BASE64.fullmatch(image)
            ):
                kept_data["image/png"] = image
                budget.images -= len(image)
            if not kept_data:
                continue
            cleaned: dict[str, Any] = {"output_type": kind, "data": kept_data, "metadata": {}}
            if kind == "execute_result":
                cleaned["execution_count"] = execution_count(output.get("execution_count"))
            kept.append(cleaned)
        elif kind == "error":
            ename = clean_text(output.get("ename"), 200)
            evalue = clean_text(output.get("evalue"), 2000)
            lines = output.get("traceback")
            traceback = "\n".join(line for line in lines if isinstance(line, str)) if isinstance(lines, list) else ""
            traceback = clean_text(traceback, min(MAX_TRACEBACK_CHARS, max(room, 0)), keep="end")
            kept.append({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": [traceback]})
            room -= len(ename) + len(evalue) + len(traceback)
    budget.text -= min(MAX_CELL_OUTPUT_CHARS, budget.text) - max(room, 0)
    return kept
