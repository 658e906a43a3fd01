"""The todo list: a validated plan (TodoManager) and the middleware that keeps it alive.

from todo import TodoListMiddleware
agent = Agent(middleware=[TodoListMiddleware(extra_ref=lambda: agent.extra)])
"""

from todo.manager import TodoError, TodoManager
from todo.middleware import TodoListMiddleware
from todo.taskwait import TaskWaitBinding, TaskWaitValidation, TaskWaitValidator

__all__ = [
    "TaskWaitBinding",
    "TaskWaitValidation",
    "TaskWaitValidator",
    "TodoError",
    "TodoListMiddleware",
    "TodoManager",
]
