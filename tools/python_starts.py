"""Whether a python hook starts only what its own text names: read with python's own parser.

A hook in python (`#!/usr/bin/env python3`) is read for the paths it names
(tools/inline_code.py), and those files are held. That reading follows names, not values: a
hook that starts a program whose name it takes from a file of the workspace
(`subprocess.run(open("ci/cmd").read().split())`), a command's output, or text it builds at
run time starts what a sandboxed command can choose. Only running the code could tell what it
starts, so planloop says so, and commands ask.

A value counts as plain when the hook's own text fixes it: a literal, a list or sum of plain
values, a name bound only to plain values (appends and extends included), git's arguments
(`sys.argv`), your environment (`os.environ`), the hook's own path (`__file__`), and the path
and split functions applied to plain values. Everything else is what only running can tell.
"""

from __future__ import annotations

import ast

# Calls that start a program or load code from the value they are given (the name the call
# ends with: `subprocess.run`, `os.execvp`, `pty.spawn`, `ctypes.CDLL`).
STARTERS = frozenset(
    (
        *("system", "popen", "Popen", "run", "call", "check_call", "check_output"),
        *("getoutput", "getstatusoutput", "startfile", "posix_spawn", "posix_spawnp"),
        *("spawn", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp"),
        *("spawnvpe", "execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp"),
        *("execvpe", "create_subprocess_exec", "create_subprocess_shell"),
        *("CDLL", "PyDLL", "WinDLL", "LoadLibrary", "load_library"),
    )
)
# Calls that run text or load a module by a name: plain only with literals.
EVALUATORS = frozenset(
    (
        *("exec", "eval", "compile", "__import__", "import_module", "run_module", "run_path"),
        *("execfile", "exec_module", "load_module", "spec_from_file_location", "getattr"),
        *("load", "loads"),  # (pickle's and marshal's, which run what they read)
    )
)
# Modules whose `load` runs code; `json.load` only reads data.
CODE_LOADERS = frozenset(("pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle"))
# Calls whose result is plain when what they are given is.
PLAIN_CALLS = frozenset(
    (
        *("join", "dirname", "basename", "abspath", "realpath", "normpath", "expanduser"),
        *("Path", "PurePath", "str", "split", "strip", "resolve", "which", "list", "tuple"),
        *("get", "getenv", "format", "fspath", "parent", "with_name", "with_suffix"),
    )
)
# Methods that add to a list bound to a name: what they add is a value of that name.
ADDERS = frozenset(("append", "extend", "insert"))
# The bindings of parameters read from a function's calls (its calls times its parameters).
MAX_BINDINGS = 100_000
MAX_DEPTH = 32  # (names bound to names: past it, the value is not plain)


def unplain_start(code: str) -> str | None:
    """The first call in `code` that starts a program, or runs code, from a value only
    running the hook can tell (its source, shortened), or None."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "code python cannot parse"
    try:
        return _Reader(tree).first_unplain()
    except RecursionError:
        return "code nested too deep to read"


class _Reader:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.bound: dict[str, list[ast.AST | None]] = {}  # None: bound where no value is told
        self.called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        self.starters = set(STARTERS)  # (and the names one is imported as)
        self.plain_names: dict[str, bool] = {}  # (each name judged once; a cycle is not plain)
        self.calls: dict[str, list[ast.Call]] = {}  # (`f(...)`, by f)
        self.uses: dict[str, int] = {}  # (each name read, called or not)
        self.looked_up: set[int] = set()  # (`getattr(os, "system")`: the text's id)
        functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in ast.walk(tree):
            self._note_bindings(node, functions)
            self._note_uses(node)
        for name, defined in functions.items():
            self._bind_parameters(name, defined)

    def _note_bindings(self, node: ast.AST, functions: dict) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            self._bind(node.target, node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if node.func.attr in ADDERS and isinstance(owner, ast.Name):
                self.bound.setdefault(owner.id, []).extend(node.args)
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
        elif isinstance(node, (ast.Lambda, ast.ClassDef)):
            for name in ast.walk(node.args) if isinstance(node, ast.Lambda) else ():
                if isinstance(name, ast.arg):
                    self.bound.setdefault(name.arg, []).append(None)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname and (alias.name in STARTERS or alias.name in EVALUATORS):
                    self.starters.add(alias.asname)

    def _note_uses(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            self.calls.setdefault(node.func.id, []).append(node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.uses[node.id] = self.uses.get(node.id, 0) + 1
        if isinstance(node, ast.Call) and _name_of(node.func) in ("getattr", "attrgetter"):
            self.looked_up.update(id(argument) for argument in node.args)
        if isinstance(node, ast.Subscript):
            self.looked_up.add(id(node.slice))

    def _bind(self, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            self.bound.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.bound.setdefault(target.value.id, []).append(value)  # `cmd[0] = x`
        elif isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
            for name in ast.walk(target):  # (`a, b = x`: each may be any part of x)
                if isinstance(name, ast.Name):
                    self.bound.setdefault(name.id, []).append(value)

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
        for other in defined[1:] if whole else defined:
            for parameter in ast.walk(other.args):
                if isinstance(parameter, ast.arg):
                    self.bound.setdefault(parameter.arg, []).append(None)
        if not whole:
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

    def first_unplain(self) -> str | None:
        for node in ast.walk(self.tree):
            starter = _name_of(node) in self.starters and id(node) not in self.called
            if isinstance(node, (ast.Name, ast.Attribute)) and starter:
                return _shown(node)  # (`run = subprocess.run`, then `run(x)`)
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and text in self.starters and id(node) in self.looked_up:
                return _shown(node)  # (`getattr(os, "system")`, `vars(os)["system"]`)
            if not isinstance(node, ast.Call):
                continue
            name = _name_of(node.func)
            if name in ("load", "loads"):
                owner = node.func.value if isinstance(node.func, ast.Attribute) else None
                if not (isinstance(owner, ast.Name) and owner.id in CODE_LOADERS):
                    continue
            if name in self.starters or name in EVALUATORS:
                given = [*node.args, *(k.value for k in node.keywords if k.arg in _KEYS)]
                literal_only = name in EVALUATORS
                if not all(self._plain(value, literal_only, 0) for value in given):
                    return _shown(node)
            elif not isinstance(node.func, (ast.Name, ast.Attribute)):
                return _shown(node)  # (`getattr(...)(x)`, `fs[0](x)`: what it calls is a value)
        return None

    def _plain(self, node: ast.AST | None, literal_only: bool, depth: int) -> bool:
        if node is None or depth > MAX_DEPTH:
            return False
        deeper = depth + 1
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return all(self._plain(each, literal_only, deeper) for each in node.elts)
        if isinstance(node, ast.Starred):
            return self._plain(node.value, literal_only, deeper)
        if literal_only:
            return False
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            return self._plain(node.left, False, deeper) and self._plain(node.right, False, deeper)
        if isinstance(node, ast.JoinedStr):
            return all(self._plain(each, False, deeper) for each in node.values)
        if isinstance(node, ast.FormattedValue):
            return self._plain(node.value, False, deeper)
        if isinstance(node, ast.IfExp):
            return self._plain(node.body, False, deeper) and self._plain(node.orelse, False, deeper)
        if isinstance(node, ast.Subscript):
            return self._plain(node.value, False, deeper) and self._plain(node.slice, False, deeper)
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return all(part is None or self._plain(part, False, deeper) for part in parts)
        if isinstance(node, ast.Attribute):
            return _source(node) in TRUSTED or (
                node.attr in PLAIN_CALLS and self._plain(node.value, False, deeper)
            )
        if isinstance(node, ast.Name):
            if node.id in ("__file__", "__name__"):
                return True  # (the hook's own path)
            if node.id not in self.plain_names:
                self.plain_names[node.id] = False  # (while it is judged: `a = a + [x]`)
                values = self.bound.get(node.id)
                plain = bool(values) and all(self._plain(each, False, deeper) for each in values)
                self.plain_names[node.id] = plain
            return self.plain_names[node.id]
        if isinstance(node, ast.Call) and _name_of(node.func) in PLAIN_CALLS:
            owner = node.func.value if isinstance(node.func, ast.Attribute) else None
            if owner is not None and not _a_module(owner) and not self._plain(owner, False, deeper):
                return False
            given = [*node.args, *(keyword.value for keyword in node.keywords)]
            return all(self._plain(each, False, deeper) for each in given)
        return False


# Values that are yours or git's: its arguments, your python and your environment.
TRUSTED = ("sys.argv", "sys.executable", "os.environ", "os.sep", "os.pathsep", "os.curdir")
# The keywords of a starting call that name what it starts, or where from.
_KEYS = ("args", "executable", "cwd", "name", "path", "source", "file")


def _name_of(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _a_module(node: ast.AST) -> bool:
    """`os.path`, `shutil`, `shlex`, `pathlib`: a module, whose functions PLAIN_CALLS names."""
    return _source(node) in ("os", "os.path", "shutil", "shlex", "pathlib", "posixpath", "str")


def _source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return ""


def _shown(node: ast.AST) -> str:
    text = " ".join(_source(node).split())
    return f"`{text if len(text) <= 60 else text[:57] + '...'}`"
