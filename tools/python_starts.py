"""What a python hook starts, read with python's own parser: command lines, or why not.

A hook in python (`#!/usr/bin/env python3`) is also read for the paths its text names
(tools/inline_code.py). That reading follows names, not values: a hook that builds its
command (`MAKE = "ma" + "ke"`), or takes it from a file of the workspace
(`subprocess.run(open("ci/cmd").read().split())`), a loop or a command's output, starts
something the reading cannot see, or that a sandboxed command can choose.

So each call that starts a program (`subprocess.run`, `os.system`, `os.execvp`, ...) is
worked out here from the values the hook's own text fixes: literals, lists and sums of them,
f-strings, names bound only to such values (with what `append` and `extend` add), a helper
function's parameters as its callers give them, git's arguments (`sys.argv`, as `$1`), your
environment (`os.environ`), the hook's own path (`__file__`), and the path and split
functions applied to those. The result is a shell command line for each way the call can
go, read as a hook's lines are. A call given anything else, code run from text (`exec`,
`eval`, `importlib.import_module` with a name it builds, `pickle.load`), or a starting
function passed around or looked up by its name, is what only running the hook can tell:
planloop says which, and commands ask. So does a hook that starts programs in any form
outside the plain ones (`_outside_the_plain_forms`): the bindings below are read only for
those, and what they do not model (a class, a loop, `with`) never reaches them.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import shlex
from collections.abc import Mapping
from pathlib import PurePosixPath

# Calls that start a program, and where the program stands among what they are given.
SHELL_LINE = ("system", "popen", "getoutput", "getstatusoutput", "create_subprocess_shell")
ARGV_OR_LINE = ("run", "call", "check_call", "check_output", "Popen", "spawn")  # (pty.spawn)
PATH_FIRST = ("execv", "execve", "execvp", "execvpe", "posix_spawn", "posix_spawnp")
PATH_FIRST_LISTED = ("execl", "execle", "execlp", "execlpe", "create_subprocess_exec")
PATH_SECOND = ("spawnv", "spawnve", "spawnvp", "spawnvpe")
PATH_SECOND_LISTED = ("spawnl", "spawnle", "spawnlp", "spawnlpe")
LOADED = ("startfile", "CDLL", "PyDLL", "LoadLibrary", "load_library")  # (a file it runs)
STARTERS = frozenset(
    (*SHELL_LINE, *ARGV_OR_LINE, *PATH_FIRST, *PATH_FIRST_LISTED, *PATH_SECOND)
    + (*PATH_SECOND_LISTED, *LOADED)
)
# Calls that run text or load a module by a name: read plainly only with literals.
EVALUATORS = frozenset(
    (
        *("exec", "eval", "compile", "__import__", "import_module", "run_module", "run_path"),
        *("execfile", "exec_module", "load_module", "spec_from_file_location", "getattr"),
        *("load", "loads"),  # (pickle's and marshal's, which run what they read)
        *("get_type_hints", "get_annotations"),  # (typing's, inspect's: they eval annotations)
    )
)
# Modules whose `load` runs code; `json.load` only reads data.
CODE_LOADERS = frozenset(("pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle"))
# Modules whose `run` starts no program (`asyncio.run(main())` runs a coroutine).
NOT_STARTING = frozenset(("asyncio", "trio", "anyio", "uvloop", "unittest", "pytest"))
# Values that are yours or git's: its arguments (as the shell would spell them), your python.
KNOWN = {"sys.executable": "python3", "os.sep": "/", "os.curdir": ".", "os.pathsep": ":"}
# Methods that add to a list bound to a name, in the order the hook calls them.
ADDERS = frozenset(("append", "extend", "insert"))
MAX_WAYS = 64  # the values one expression may take (`if`/`else` bindings multiply)
MAX_DEPTH = 32  # names bound to names, expressions in expressions
MAX_BINDINGS = 100_000  # a function's calls times its parameters

# A source file's encoding as python reads it (PEP 263), in its first two lines.
CODING = re.compile(r"^[ \t\f]*+#.*?coding[:=][ \t]*+([-\w.]++)", re.MULTILINE)
Value = str | tuple[str, ...]  # a text, or a list of texts (an argv)


def _runs_text_as_a_value(node: ast.AST, called: set[int]) -> bool:
    """Whether `node` takes a function that runs text or loads code (EVALUATORS) as a value,
    not calling it there: what later calls it, with what, only running the hook tells."""
    return (
        isinstance(node, (ast.Name, ast.Attribute))
        and isinstance(node.ctx, ast.Load)
        and _name_of(node) in EVALUATORS
        and id(node) not in called
    )


class Untold(Exception):
    """A value only running the hook can tell."""


def python_starts(
    code: str, hook: str, top: str, environ: Mapping[str, str]
) -> tuple[list[str], str | None]:
    """The command lines the python hook `code` at `hook` starts, run from `top` with your
    environment `environ`; and the first call whose program only running it can tell (its
    source, shortened), or None."""
    cookie = CODING.search("\n".join(code.splitlines()[:2]))
    if cookie and cookie[1].lower().replace("_", "-") not in ("utf-8", "utf8", "ascii"):
        return [], f"its `coding: {cookie[1]}`, which python reads and planloop does not"
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], "code python cannot parse"
    try:
        return _Reader(tree, hook, top, environ).command_lines()
    except RecursionError:
        return [], "code nested too deep to read"


class _Reader:
    def __init__(self, tree: ast.Module, hook: str, top: str, environ: Mapping[str, str]) -> None:
        self.tree, self.hook, self.top, self.environ = tree, hook, top, environ
        self.bound: dict[str, list[ast.AST | None]] = {}  # None: bound to what no text tells
        self.added: dict[str, list[tuple[str, ast.AST | None]]] = {}  # appends, in order
        self.values: dict[str, list[Value] | None] = {}  # (each name worked out once)
        self.called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        self.starters = set(STARTERS)  # (and the names one is imported as)
        self.calls: dict[str, list[ast.Call]] = {}
        self.uses: dict[str, int] = {}
        self.looked_up: set[int] = set()  # (`getattr(os, "system")`: the text's id)
        functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in sorted(_nodes(tree), key=_position):
            self._note_bindings(node, functions)
            self._note_uses(node)
        for name, defined in functions.items():
            self._bind_parameters(name, defined)

    # -- what the hook binds to each name ----------------------------------------------------

    def _note_bindings(self, node: ast.AST, functions: dict) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            self._bind(node.target, node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            kind = "extend" if isinstance(node.op, ast.Add) else "untold"
            self.added.setdefault(node.target.id, []).append((kind, node.value))
        elif isinstance(node, ast.AugAssign):
            self._bind(node.target, None)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner, method = node.func.value, node.func.attr
            if method in ADDERS and isinstance(owner, ast.Name):
                self.added.setdefault(owner.id, []).append(_addition(method, node))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._bind(node.target, None)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._bind(node.optional_vars, None)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.bound.setdefault(node.name, []).append(None)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self.bound.setdefault(name, []).append(None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.Lambda):
            for parameter in ast.walk(node.args):
                if isinstance(parameter, ast.arg):
                    self.bound.setdefault(parameter.arg, []).append(None)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname and (alias.name in STARTERS or alias.name in EVALUATORS):
                    self.starters.add(alias.asname)

    def _bind(self, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            self.bound.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.added.setdefault(target.value.id, []).append(("untold", None))  # `cmd[0] = x`
        else:  # (`a, b = x`, `for f in ...`: each name, to what no text tells)
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self.bound.setdefault(name.id, []).append(None)

    def _note_uses(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            self.calls.setdefault(node.func.id, []).append(node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.uses[node.id] = self.uses.get(node.id, 0) + 1
        if isinstance(node, ast.Call) and _name_of(node.func) in ("getattr", "attrgetter"):
            self.looked_up.update(id(argument) for argument in node.args)
        if isinstance(node, ast.Subscript):
            self.looked_up.add(id(node.slice))

    def _bind_parameters(self, name: str, defined: list) -> None:
        """A function's parameters take what each call of it gives (`def run(cmd)`, then
        `run(["make", "lint"])`), and their defaults; one passed around, defined twice, or
        called past MAX_BINDINGS times its parameters, tells nothing."""
        calls = self.calls.get(name, [])
        arguments = defined[0].args
        positional = [*arguments.posonlyargs, *arguments.args]
        parameters = [*positional, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        whole = len(defined) == 1 and self.uses.get(name, 0) == len(calls)
        whole = whole and len(calls) * len(parameters) <= MAX_BINDINGS
        whole = whole and not any(isinstance(a, ast.Starred) for c in calls for a in c.args)
        whole = whole and not any(k.arg is None for c in calls for k in c.keywords)  # (`**x`)
        if not whole:
            for other in defined:
                for parameter in ast.walk(other.args):
                    if isinstance(parameter, ast.arg):
                        self.bound.setdefault(parameter.arg, []).append(None)
            return
        for rest in (arguments.vararg, arguments.kwarg):
            if rest is not None:
                self.bound.setdefault(rest.arg, []).append(None)
        defaults = dict(zip(reversed(positional), reversed(arguments.defaults), strict=False))
        defaults |= dict(zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True))
        for parameter, default in defaults.items():
            if default is not None:
                self.bound.setdefault(parameter.arg, []).append(default)
        for call in calls:
            given = dict(zip((p.arg for p in positional), call.args, strict=False))
            given |= {keyword.arg: keyword.value for keyword in call.keywords}
            for parameter in (*positional, *arguments.kwonlyargs):
                if parameter.arg in given:
                    self.bound.setdefault(parameter.arg, []).append(given[parameter.arg])

    # -- the calls that start programs -----------------------------------------------------

    def command_lines(self) -> tuple[list[str], str | None]:
        lines: list[str] = []
        if why := _outside_the_plain_forms(self.tree, self.starters):
            return lines, why
        for node in sorted(_nodes(self.tree), key=_position):
            starter = _name_of(node) in self.starters and id(node) not in self.called
            if isinstance(node, (ast.Name, ast.Attribute)) and starter:
                return lines, _shown(node)  # (`start = subprocess.run`, then `start(x)`)
            if _runs_text_as_a_value(node, self.called):
                return lines, _shown(node)  # (`r = exec`, `map(eval, texts)`, `[eval][0](x)`)
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and text in self.starters and id(node) in self.looked_up:
                return lines, _shown(node)  # (`getattr(os, "system")`, `vars(os)["system"]`)
            if not isinstance(node, ast.Call):
                continue
            if not isinstance(node.func, (ast.Name, ast.Attribute)):
                return lines, _shown(node)  # (`getattr(...)(x)`: what it calls is a value)
            try:
                lines += self._started(node)
            except Untold:
                return lines, _shown(node)
        return list(dict.fromkeys(lines)), None

    def _started(self, call: ast.Call) -> list[str]:
        """The command lines `call` starts (none for a call that starts nothing); Untold for
        one whose program only running can tell."""
        name = _name_of(call.func)
        owner = call.func.value if isinstance(call.func, ast.Attribute) else None
        module = owner.id if isinstance(owner, ast.Name) else ""
        if name in ("load", "loads") and module not in CODE_LOADERS:
            return []  # (`json.load`: data)
        if name in EVALUATORS:
            given = [*call.args, *(keyword.value for keyword in call.keywords)]
            if not all(isinstance(value, ast.Constant) for value in given):
                raise Untold
            return []
        if name not in self.starters or name == "run" and module in NOT_STARTING:
            return []
        name = name if name in STARTERS else "run"  # (`from subprocess import run as r`)
        args = list(call.args)
        keywords = {keyword.arg: keyword.value for keyword in call.keywords}
        if None in keywords:  # (`run(**options)`)
            raise Untold
        if "args" in keywords and not args:
            args = [keywords["args"]]
        lines = []
        for ways in self._argvs(name, args, keywords):
            lines += ways
        if "executable" in keywords:
            lines += [shlex.quote(_text(way)) for way in self._ways(keywords["executable"], 0)]
        if "cwd" in keywords and not _none(keywords["cwd"]):
            folders = [_text(way) for way in self._ways(keywords["cwd"], 0)]
            lines = [f"cd {shlex.quote(folder)} && {line}" for folder in folders for line in lines]
        return lines

    def _argvs(self, name: str, args: list[ast.AST], keywords: dict) -> list[list[str]]:
        if not args:
            return []
        if name in SHELL_LINE:
            return [[_text(way) for way in self._ways(args[0], 0)]]
        if name in ARGV_OR_LINE:
            shell = keywords.get("shell")
            if shell is not None and not (isinstance(shell, ast.Constant) and not shell.value):
                return [[_text(way) for way in self._ways(args[0], 0)]]  # (`shell=True`)
            return [[_joined(way) for way in self._ways(args[0], 0)]]
        if name in LOADED:
            return [[shlex.quote(_text(way)) for way in self._ways(args[0], 0)]]
        at = 1 if name in PATH_SECOND or name in PATH_SECOND_LISTED else 0
        if len(args) <= at:
            raise Untold
        paths = [_text(way) for way in self._ways(args[at], 0)]
        if name in PATH_FIRST_LISTED or name in PATH_SECOND_LISTED:
            listed = self._ways(ast.Tuple(elts=list(args[at + 1 :]), ctx=ast.Load()), 0)
        else:
            listed = self._ways(args[at + 1], 0) if len(args) > at + 1 else [()]
        skip = 0 if name == "create_subprocess_exec" else 1  # (argv[0] is the program's name)
        return [[shlex.join([path, *_words(way)[skip:]]) for path in paths for way in listed]]

    # -- values ------------------------------------------------------------------------------

    def _ways(self, node: ast.AST | None, depth: int) -> list[Value]:
        """The values `node` may take, at most MAX_WAYS; Untold for one no text fixes."""
        if node is None or depth > MAX_DEPTH:
            raise Untold
        found = list(dict.fromkeys(self._ways_of(node, depth + 1)))
        if len(found) > MAX_WAYS:
            raise Untold
        return found

    def _ways_of(self, node: ast.AST, depth: int) -> list[Value]:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bytes):
                return [value.decode("latin-1")]
            return [value] if isinstance(value, str) else [str(value)]
        if isinstance(node, (ast.List, ast.Tuple)):
            return self._listed(node.elts, depth)
        if isinstance(node, ast.JoinedStr):
            parts = [self._ways(part, depth) for part in node.values]
            return _products(parts, lambda texts: "".join(_text(text) for text in texts))
        if isinstance(node, ast.FormattedValue):
            if node.format_spec is not None:
                raise Untold
            return [_text(way) for way in self._ways(node.value, depth)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            sides = [self._ways(node.left, depth), self._ways(node.right, depth)]
            joining = isinstance(node.op, ast.Div)  # (`Path(x) / "y"`)
            return _products(sides, lambda pair: _joined_pair(pair, joining))
        if isinstance(node, ast.IfExp):
            return [*self._ways(node.body, depth), *self._ways(node.orelse, depth)]
        if isinstance(node, ast.Name):
            return self._name(node.id, depth)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, depth)
        if isinstance(node, ast.Subscript):
            return self._item(node, depth)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        raise Untold

    def _listed(self, elements: list[ast.AST], depth: int) -> list[Value]:
        parts = []
        for element in elements:
            if isinstance(element, ast.Starred):
                parts.append([_words(way) for way in self._ways(element.value, depth)])
            else:
                parts.append([(_text(way),) for way in self._ways(element, depth)])
        return _products(parts, lambda pieces: tuple(word for piece in pieces for word in piece))

    def _name(self, name: str, depth: int) -> list[Value]:
        if name == "__file__":
            return [self.hook]
        if name not in self.values:
            self.values[name] = None  # (while it is worked out: `a = a + [x]` tells nothing)
            with contextlib.suppress(Untold):
                self.values[name] = self._name_ways(name, depth)
        if self.values[name] is None:
            raise Untold
        return self.values[name]

    def _name_ways(self, name: str, depth: int) -> list[Value]:
        bound = self.bound.get(name)
        if not bound:
            raise Untold
        ways = list(dict.fromkeys(way for value in bound for way in self._ways(value, depth)))
        for kind, value in self.added.get(name, []):
            if kind == "untold":
                raise Untold
            more = self._ways(value, depth)
            if kind == "append":
                more = [(_text(way),) for way in more]
            ways = _products([ways, more], lambda pair, kind=kind: _added(pair, kind))
        if len(ways) > MAX_WAYS:
            raise Untold
        return ways

    def _attribute(self, node: ast.Attribute, depth: int) -> list[Value]:
        source = _source(node)
        if source in KNOWN:
            return [KNOWN[source]]
        if source == "sys.argv":
            raise Untold  # (its first word is the path git ran it by: only `sys.argv[1:]`)
        if node.attr in ("parent", "name", "stem"):
            texts = [_text(way) for way in self._ways(node.value, depth)]
            if node.attr == "parent":  # (pathlib's: `Path("web/sub/").parent` is web)
                return [str(PurePosixPath(text).parent) for text in texts]
            names = [PurePosixPath(text).name for text in texts]
            return names if node.attr == "name" else [os.path.splitext(n)[0] for n in names]
        raise Untold

    def _item(self, node: ast.Subscript, depth: int) -> list[Value]:
        source = _source(node.value)
        key = node.slice
        if source == "os.environ" and isinstance(key, ast.Constant):
            return [self.environ.get(str(key.value), "")]
        if source == "sys.argv":  # (git's arguments: as the shell spells them)
            if isinstance(key, ast.Constant) and isinstance(key.value, int) and key.value > 0:
                return [f"${key.value}"]
            if isinstance(key, ast.Slice) and _from_one(key):
                return [("$@",)]
            raise Untold  # (`sys.argv[0]`: the path git ran it by, a link's or not)
        ways = self._ways(node.value, depth)
        if isinstance(key, ast.Constant) and isinstance(key.value, int):
            return [_words(way)[key.value] for way in ways if -len(way) <= key.value < len(way)]
        if isinstance(key, ast.Slice) and all(
            part is None or isinstance(part, ast.Constant) for part in (key.lower, key.upper)
        ):
            lower = key.lower.value if key.lower is not None else None
            upper = key.upper.value if key.upper is not None else None
            if key.step is None and all(isinstance(b, (int, type(None))) for b in (lower, upper)):
                return [_words(way)[lower:upper] for way in ways]
        raise Untold

    def _call(self, node: ast.Call, depth: int) -> list[Value]:
        name = _name_of(node.func)
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        source = _source(owner) if owner is not None else ""
        args = node.args
        if any(isinstance(a, ast.Starred) for a in args) or node.keywords and name != "split":
            raise Untold
        if name in ("get", "getenv") and source in ("os.environ", "os") and 1 <= len(args) <= 2:
            keys = [_text(way) for way in self._ways(args[0], depth)]
            defaults = [_text(way) for way in self._ways(args[1], depth)] if len(args) > 1 else [""]
            return [self.environ.get(k, d) for k in keys for d in defaults]
        if source in ("os.path", "posixpath") or name in ("Path", "PurePath", "str", "fspath"):
            texts = _products([[_text(way) for way in self._ways(a, depth)] for a in args], tuple)
            return [self._path(name, way) for way in texts]
        if name in ("resolve", "absolute", "expanduser") and owner is not None:
            return [self._path(name, (_text(way),)) for way in self._ways(owner, depth)]
        if name == "which" and len(args) == 1:  # (the program by its name, on your PATH)
            return [_text(way) for way in self._ways(args[0], depth)]
        if name in ("list", "tuple") and len(args) == 1:
            return [_words(way) for way in self._ways(args[0], depth)]
        if name == "split" and owner is not None and source == "shlex" and len(args) == 1:
            return [tuple(_split(_text(way))) for way in self._ways(args[0], depth)]
        if name == "split" and owner is not None and not args and not node.keywords:
            return [tuple(_text(way).split()) for way in self._ways(owner, depth)]
        if name == "strip" and owner is not None and not args:
            return [_text(way).strip() for way in self._ways(owner, depth)]
        if name == "join" and owner is not None and len(args) == 1 and source != "os.path":
            separators = [_text(way) for way in self._ways(owner, depth)]
            lists = self._ways(args[0], depth)
            return [sep.join(_words(way)) for sep in separators for way in lists]
        raise Untold

    def _path(self, name: str, texts: tuple[str, ...]) -> str:
        if name in ("Path", "PurePath") and texts:
            return str(PurePosixPath(*texts))
        if name == "join" and texts:
            return os.path.join(*texts)
        if len(texts) != 1:
            raise Untold
        (text,) = texts
        if name in ("str", "fspath"):
            return text
        if name in ("dirname", "basename", "expanduser", "normpath"):
            return getattr(os.path, name)(text)
        if name in ("abspath", "realpath", "resolve", "absolute"):
            return os.path.normpath(os.path.join(self.top, text))  # (a hook runs at the top)
        raise Untold


# The forms a hook may use and still be worked out: statements at its top level, `if`, and
# helper functions without decorators, calling what PLAIN_CALLS names, importing PLAIN_MODULES.
# Anything else (a class, a loop, `match`, `with`, `globals()`, `site`, `ctypes`, `timeit`,
# `os.chdir`, `env=`) asks: what it runs is for python to tell.
UNREAD_FORMS = (
    *(ast.ClassDef, ast.Lambda, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith),
    *(ast.Try, ast.Match, ast.Global, ast.Nonlocal, ast.Delete, ast.Await, ast.Yield),
    *(ast.YieldFrom, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr),
    ast.AsyncFunctionDef,
)
PLAIN_MODULES = frozenset(("os", "os.path", "sys", "subprocess", "shutil", "shlex", "pathlib"))
PLAIN_MODULES |= {"distutils.spawn", "__future__", "typing", "re", "json", "string", "textwrap"}
PLAIN_MODULES |= {"datetime", "enum", "dataclasses", "collections", "functools", "itertools"}
PLAIN_MODULES |= {"argparse", "fnmatch", "glob", "io", "time", "unicodedata", "tomllib"}
PLAIN_CALLS = frozenset(
    (
        *("which", "find_executable", "access", "pop", "get", "getenv", "extend", "append"),
        *("insert", "join", "dirname", "basename", "abspath", "realpath", "normpath", "exists"),
        *("expanduser", "isfile", "isdir", "split", "strip", "rstrip", "lstrip", "format"),
        *("startswith", "endswith", "print", "exit", "SystemExit", "wait", "len", "str"),
        *("Path", "PurePath", "list", "tuple", "resolve", "absolute", "communicate", "decode"),
    )
)
# What a starting call may be given besides its command: `cwd`, and how it treats output.
PLAIN_KEYWORDS = frozenset(("cwd", "check", "shell", "text", "stdin", "stdout", "stderr"))
PLAIN_KEYWORDS |= {"capture_output", "encoding", "errors", "universal_newlines", "timeout"}


def _outside_the_plain_forms(tree: ast.Module, starters: set[str]) -> str | None:
    """Why the hook uses a form it cannot be worked out through (UNREAD_FORMS), or None. A
    hook that starts nothing and runs no text (a commit-msg check: `open(sys.argv[1])`,
    `re`, a loop) only has its imports looked at."""
    starts = any(
        isinstance(node, ast.Call) and (_name_of(node.func) in starters | EVALUATORS)
        for node in ast.walk(tree)
    )
    methods = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    modules = {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    for node in ast.walk(tree):
        if not starts and not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, UNREAD_FORMS):
            return f"`{type(node).__name__.lower()}` code"
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            return _shown(node.decorator_list[0])
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            names = [module] if module else [alias.name for alias in node.names]
            if any(name not in PLAIN_MODULES for name in names):
                return f"`import {', '.join(name or '.' for name in names)}`"
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not all(isinstance(target, (ast.Name, ast.Tuple)) for target in targets):
                return _shown(targets[0])  # (`os.environ["PATH"] = ...`, `cmd[0] = ...`)
        helper = isinstance(node, ast.Attribute) and node.attr in methods
        if helper and _source(node.value) not in (*modules, "os.path"):
            return _shown(node)  # (`obj.check(...)`: a helper called not by its name)
        if not isinstance(node, ast.Call):
            continue
        name = _name_of(node.func)
        if name not in PLAIN_CALLS and name not in starters and name not in methods:
            return _shown(node)
        if name in starters and any(k.arg not in PLAIN_KEYWORDS for k in node.keywords):
            return _shown(node)  # (`env=`, `executable=`, `preexec_fn=`)
        if name in ("Popen", "run", "call", "check_call", "check_output") and len(node.args) > 1:
            return _shown(node)  # (Popen's third positional word is its executable)
    return None


def _from_one(key: ast.Slice) -> bool:
    lower = key.lower
    return isinstance(lower, ast.Constant) and lower.value == 1 and not (key.upper or key.step)


def _nodes(tree: ast.AST) -> list[ast.AST]:
    return list(ast.walk(tree))


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _addition(method: str, call: ast.Call) -> tuple[str, ast.AST | None]:
    """What `name.append(x)`, `.extend(x)` or `.insert(0, x)` adds; an insert elsewhere, or
    a call of another form, makes the list untold."""
    if method == "append" and len(call.args) == 1 and not call.keywords:
        return "append", call.args[0]
    if method == "extend" and len(call.args) == 1 and not call.keywords:
        return "extend", call.args[0]
    at = call.args[0] if len(call.args) == 2 else None
    if method == "insert" and isinstance(at, ast.Constant) and at.value == 0:
        return "prepend", call.args[1]
    return "untold", None


def _added(pair: tuple[Value, Value], kind: str) -> Value:
    value, more = pair
    if isinstance(value, str) and isinstance(more, str) and kind == "extend":
        return value + more  # (`line += " --fix"`)
    if isinstance(value, tuple):
        if kind == "prepend":
            return (_text(more), *value)
        return (*value, *_words(more)) if isinstance(more, tuple) else (*value, more)
    raise Untold


def _joined_pair(pair: tuple[Value, Value], joining: bool) -> Value:
    left, right = pair
    if isinstance(left, str) and isinstance(right, str):
        return os.path.join(left, right) if joining else left + right
    if isinstance(left, tuple) and isinstance(right, tuple) and not joining:
        return left + right
    raise Untold


def _products(parts: list[list], make) -> list:
    """Each way of taking one value from each part, made into one (at most MAX_WAYS)."""
    ways: list[tuple] = [()]
    for part in parts:
        ways = [(*way, value) for way in ways for value in part]
        if len(ways) > MAX_WAYS:
            raise Untold
    return [make(way) for way in ways]


def _text(value: Value) -> str:
    if isinstance(value, tuple):
        raise Untold  # (a list where a text stands)
    return value


def _words(value: Value) -> tuple[str, ...]:
    if isinstance(value, str):
        raise Untold  # (a text where a list stands: its letters)
    return value


def _joined(value: Value) -> str:
    """A command line for an argv (a text alone is the program's name)."""
    return shlex.join(value) if isinstance(value, tuple) else shlex.quote(value)


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        raise Untold from None


def _none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _name_of(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return ""


def _shown(node: ast.AST) -> str:
    text = " ".join(_source(node).split())
    return f"`{text if len(text) <= 60 else text[:57] + '...'}`"
