"""/permissions: the policy, the rules an "always" added, and forgetting or saving one.

    /permissions            the policy's table, then the rules, numbered
    /permissions forget 2   rule 2 no longer applies (and is no longer saved)
    /permissions save 1     rule 1, a command rule, is kept for this folder in planloop's home

The rules themselves live in the permission policy (middleware/permissions.py); this module
only shows them and passes on what the person typed.
"""

from __future__ import annotations

from typing import Any

from cli.render import TerminalUI, permission_table
from middleware import PermissionPolicy

USAGE = "Use /permissions, /permissions forget N or /permissions save N."


def permissions_command(agent: Any, ui: TerminalUI, line: str) -> None:
    policy = find_policy(agent)
    if policy is None:
        ui.print_line("No permission policy: every tool call runs.")
        return
    words = line.split()[1:]
    if not words:
        ui.console.print(permission_table(policy.rules()))
        show_rules(policy, ui)
        return
    if len(words) != 2 or words[0] not in ("forget", "save") or not words[1].isdigit():
        ui.notice(USAGE)
        return
    try:
        if words[0] == "forget":
            rule = policy.forget(int(words[1]))
            ui.print_line(f"Forgotten: {rule.describe()}; it asks again.", "dim")
        else:
            path = policy.save(int(words[1]))
            ui.print_line(f"Saved for this folder in {path}; loaded on the next start here.", "dim")
    except (ValueError, OSError) as err:
        ui.notice(f"Nothing changed: {err}.")


def use_saved_rules(agent: Any, ui: TerminalUI) -> None:
    """At an interactive start: load the rules saved for this folder, and say what was loaded.

    A headless run asks no questions, and stays so: it does not load them (see README).
    """
    policy = find_policy(agent)
    if policy is None:
        return
    problem = policy.use_saved_rules(agent.workspace)
    if problem:
        ui.notice(f"Saved permission rules: {problem}.")
    saved = [rule.describe() for rule in policy.session_rules if rule.saved]
    if saved:
        ui.print_line(f"Saved rules of this folder allow {', '.join(saved)} (/permissions).", "dim")


def find_policy(agent: Any) -> PermissionPolicy | None:
    return next((m for m in agent.hooks.middlewares if isinstance(m, PermissionPolicy)), None)


def show_rules(policy: PermissionPolicy, ui: TerminalUI) -> None:
    """The rules an "always" added, numbered for forget and save."""
    if not policy.session_rules:
        ui.print_line("No rules yet: answering a (always) at a question adds one.", "dim")
        return
    ui.print_line("Allowed without asking (an always at a question adds a rule):")
    for number, rule in enumerate(policy.session_rules, 1):
        saved = "  (saved for this folder)" if rule.saved else ""
        ui.print_line(f"  {number}. {rule.describe()}{saved}")
    ui.print_line(
        "/permissions forget N removes one; /permissions save N keeps a command rule for this "
        "folder, in planloop's home.",
        "dim",
    )
