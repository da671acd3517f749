"""Reading the student's CUDA source: where the __global__ functions are, what their
parameters are called, and the one rewrite g++ needs (extern __shared__ declarations).

This is a light scanner, not a C++ parser: it blanks comments and string literals, tracks
namespace braces, and looks at the text around each `__global__`. The compiler does the real
work: parameter types come from template deduction in the generated registry (see
tclab_cuda.h), so a mistake here can cost a kernel's name in a message, never a wrong call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FILENAME = "kernel.cu"  # what compile errors call the student's source, on both backends

_IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass
class Kernel:
    name: str  # as written, e.g. "add" or "scale<256>" for an explicit instantiation
    expr: str  # how generated code refers to it: qualified, with template arguments
    line: int  # 1-based line in the student's source
    params: list[str | None] = field(default_factory=list)  # parameter names (None: unnamed)
    param_types: list[str] = field(default_factory=list)
    is_template: bool = False  # a template definition: launchable only once instantiated
    defined: bool = False  # has a body here (a bare prototype is not registered)


def blank_comments_and_strings(src: str) -> str:
    """Same length and same newlines as src, with comments and literal contents as spaces."""
    out = list(src)
    i, n = 0, len(src)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            blank(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _match_close(text: str, i: int, open_: str, close: str) -> int:
    """Index just past the bracket that closes text[i] (== open_), or -1."""
    depth = 0
    for k in range(i, len(text)):
        if text[k] == open_:
            depth += 1
        elif text[k] == close:
            depth -= 1
            if depth == 0:
                return k + 1
    return -1


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def _param(text: str) -> tuple[str | None, str]:
    """'const float* __restrict__ x = 0' -> ('x', 'const float* __restrict__')."""
    text = text.split("=")[0].strip()
    m = re.search(r"([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$", text)
    words = _IDENT.findall(text)
    qualifiers = {"const", "volatile", "__restrict__", "unsigned", "signed", "long", "short",
                  "int", "char", "float", "double", "bool", "void", "struct"}
    if m and len(words) >= 2 and m.group(1) not in qualifiers:
        return m.group(1), (text[: m.start()] + m.group(2)).strip()
    return None, text


def _namespaces(stripped: str) -> list[tuple[int, tuple[str, ...]]]:
    """(position, enclosing namespaces) at every brace, for looking up a position later."""
    marks: list[tuple[int, tuple[str, ...]]] = [(0, ())]
    stack: list[str | None] = []
    token = re.compile(r'namespace\s+([A-Za-z_]\w*)\s*\{|namespace\s*\{|extern\s*"[^"]*"\s*\{|[{}]')
    for m in token.finditer(stripped):
        text = m.group(0)
        if text == "}":
            if stack:
                stack.pop()
        elif text.startswith("namespace"):
            stack.append(m.group(1) or "")  # "" = anonymous: no qualifier needed
        elif text.startswith("extern"):
            stack.append("")
        else:
            stack.append(None)  # a function, class or block body
        marks.append((m.end(), tuple(s for s in stack if s is not None)))
    return marks


def _scope_at(marks: list[tuple[int, tuple[str, ...]]], pos: int) -> tuple[str, ...]:
    scope: tuple[str, ...] = ()
    for p, s in marks:
        if p > pos:
            break
        scope = s
    return scope


def find_kernels(src: str) -> list[Kernel]:
    """Every __global__ function definition (and explicit template instantiation) in src."""
    stripped = blank_comments_and_strings(src)
    marks = _namespaces(stripped)
    kernels: list[Kernel] = []
    for m in re.finditer(r"\b__global__\b", stripped):
        start = max(stripped.rfind(ch, 0, m.start()) for ch in ";{}") + 1
        prefix = stripped[start : m.start()]
        prefix = "\n".join(ln for ln in prefix.split("\n") if not ln.lstrip().startswith("#"))
        is_template = re.search(r"\btemplate\s*<", prefix) is not None
        instantiation = not is_template and re.search(r"\btemplate\b", prefix) is not None
        i, name, targs = m.end(), None, ""
        while i < len(stripped):
            ch = stripped[i]
            if ch.isspace():
                i += 1
                continue
            word = _IDENT.match(stripped, i)
            if word and word.group(0) == "__launch_bounds__":
                j = stripped.find("(", word.end())
                i = _match_close(stripped, j, "(", ")")
                if i < 0:
                    break
                continue
            if word:
                name, targs = word.group(0), ""
                i = word.end()
                continue
            if ch == ":" and stripped.startswith("::", i):
                i += 2
                continue
            if ch == "<" and name:
                j = _match_close(stripped, i, "<", ">")
                if j < 0:
                    break
                targs = re.sub(r"\s+", "", stripped[i:j])
                i = j
                continue
            break
        if not name or i >= len(stripped) or stripped[i] != "(":
            continue
        close = _match_close(stripped, i, "(", ")")
        if close < 0:
            continue
        after = stripped[close:].lstrip()
        params = [] if re.fullmatch(r"\s*(void)?\s*", stripped[i + 1 : close - 1]) else [
            _param(p) for p in _split_top(src[i + 1 : close - 1])
        ]
        scope = "::".join(s for s in _scope_at(marks, m.start()) if s)
        expr = (f"{scope}::" if scope else "") + name + (targs if instantiation else "")
        kernels.append(Kernel(
            name=name + (targs if instantiation else ""),
            expr=expr,
            line=src.count("\n", 0, m.start()) + 1,
            params=[p[0] for p in params],
            param_types=[p[1] for p in params],
            is_template=is_template,
            defined=after.startswith("{") or instantiation,
        ))
    return kernels


def registrations(kernels: list[Kernel]) -> list[tuple[str, str]]:
    """(name, C++ pointer-to-function expression) for every kernel that can be launched."""
    launchable = [k for k in kernels if k.defined and not k.is_template]
    counts: dict[str, int] = {}
    for k in launchable:
        counts[k.expr] = counts.get(k.expr, 0) + 1
    out, seen = [], set()
    for k in launchable:
        expr = f"&{k.expr}"
        if counts[k.expr] > 1:  # overloaded: pick this one by its parameter types
            expr = f"static_cast<void (*)({', '.join(k.param_types)})>(&{k.expr})"
        if expr in seen:
            continue
        seen.add(expr)
        out.append((k.name, expr))
    return out


def shared_initializers(src: str) -> list[int]:
    """Lines of `__shared__ T x = ...;` declarations. nvcc refuses them (shared memory is not
    initialised per block); g++ would accept the static thread_local they become."""
    stripped = blank_comments_and_strings(src)
    lines = []
    for m in re.finditer(r"\b__shared__\b", stripped):
        start = max(stripped.rfind(ch, 0, m.start()) for ch in ";{}") + 1
        if re.search(r"\bextern\b", stripped[start : m.start()]):
            continue
        end = stripped.find(";", m.end())
        decl = stripped[m.end() : end if end >= 0 else len(stripped)]
        eq = re.search(r"(?<![=!<>])=(?!=)", decl)
        if eq:
            lines.append(src.count("\n", 0, m.end() + eq.start()) + 1)
    return lines


_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\b(?:\s*\b(?:volatile|__volatile__|__volatile|inline|"
                  r"goto)\b)*\s*\(")


@dataclass
class InlineAsm:
    offset: int  # of the asm keyword in the source
    line: int
    instruction: str  # its first PTX instruction, e.g. "mma.sync"; "" when not a literal


def inline_asm(src: str) -> list[InlineAsm]:
    """Every `asm(...)` / `asm volatile(...)` statement with a non-empty template. The CPU
    backend cannot run PTX; an empty one (`asm volatile("" ::: "memory")`, a compiler barrier)
    means the same to g++ and is left alone."""
    stripped = blank_comments_and_strings(src)
    found = []
    for m in _ASM.finditer(stripped):
        template = _string_literals(src, stripped, m.end())
        if template is not None and not template.strip():
            continue
        found.append(InlineAsm(m.start(), src.count("\n", 0, m.start()) + 1,
                               ptx_instruction(template or "")))
    return found


def _string_literals(src: str, stripped: str, i: int) -> str | None:
    """The contents of the adjacent string literals starting at src[i] (blanks and comments
    between them skipped), or None when none starts there (a macro, say)."""
    parts, n = [], len(src)
    while True:
        while i < n and stripped[i].isspace():
            i += 1  # comments are blank in `stripped`
        if i >= n or src[i] != '"':
            break
        j = i + 1
        while j < n and src[j] != '"' and src[j] != "\n":
            j += 2 if src[j] == "\\" else 1
        parts.append(src[i + 1 : j])
        i = j + 1
    return "".join(parts) if parts else None


def ptx_instruction(template: str) -> str:
    """'{ .reg .b32 t; mma.sync.aligned.m16n8k16... }' -> 'mma.sync': the first instruction,
    without its type and shape suffixes."""
    text = template.replace("\\n", "\n").replace("\\t", " ").replace("{", ";").replace("}", ";")
    for stmt in re.split(r"[;\n]", text):
        stmt = re.sub(r"^\s*(?:[A-Za-z_$][\w$]*\s*:)?\s*(?:@!?%?\w+\s+)?", "", stmt).strip()
        if not stmt or stmt.startswith("."):
            continue  # directives: .reg, .pred, ...
        word = stmt.split()[0]
        return ".".join(word.split(".")[:2])
    return ""


_EXTERN_SHARED = re.compile(
    r"\bextern\s+(volatile\s+)?__shared__\s+([^;{}\[\]=]*?)\s*\b([A-Za-z_]\w*)\s*\[\s*\]\s*;"
)


def rewrite_extern_shared(src: str) -> tuple[str, list[str]]:
    """`extern __shared__ T name[];` -> a pointer into the block's dynamic shared memory.

    g++ has no extern __shared__. Inside a function the pointer is a plain local; at namespace
    scope it must be a thread_local (each OS thread runs its own block), and those names are
    returned so that the runtime does not poison them as if they were static shared memory.
    The replacement keeps every newline, so line numbers hold.
    """
    stripped = blank_comments_and_strings(src)
    marks = _brace_kinds(stripped)
    out, last, globals_ = [], 0, []
    for m in _EXTERN_SHARED.finditer(stripped):
        type_ = src[m.start(2) : m.end(2)]
        type_ = re.sub(r"__align__\s*\([^)]*\)|alignas\s*\([^)]*\)", "", type_)
        type_ = " ".join(((m.group(1) or "") + type_).split())
        name = m.group(3)
        newlines = "\n" * src.count("\n", m.start(), m.end())
        storage = "" if _in_body(marks, m.start()) else "static thread_local "
        if storage:
            globals_.append(name)
        out.append(src[last : m.start()])
        out.append(f"{storage}{type_}* const {name} = "
                   f"reinterpret_cast<{type_}*>(::tclab::dyn_smem);{newlines}")
        last = m.end()
    out.append(src[last:])
    return "".join(out), globals_


def _brace_kinds(stripped: str) -> list[tuple[int, bool]]:
    """(position, inside a function/class body?) after every brace."""
    marks, stack = [(0, False)], []
    token = re.compile(r'namespace\s*(?:[A-Za-z_]\w*)?\s*\{|extern\s*"[^"]*"\s*\{|[{}]')
    for m in token.finditer(stripped):
        text = m.group(0)
        if text == "}":
            if stack:
                stack.pop()
        else:
            stack.append(text == "{")
        marks.append((m.end(), any(stack)))
    return marks


def _in_body(marks: list[tuple[int, bool]], pos: int) -> bool:
    inside = False
    for p, flag in marks:
        if p > pos:
            break
        inside = flag
    return inside


def wrap_extern_c(src: str, no_extern_c: bool, filename: str = FILENAME) -> str:
    """What pycuda compiles (extern "C" { src }), with a #line so that diagnostics count
    lines of src from 1, and name it kernel.cu."""
    body = f'#line 1 "{filename}"\n{src}\n'
    return body if no_extern_c else f'extern "C" {{\n{body}}}\n'
