"""The hub's password rule, said once and checked before JupyterHub starts (``make hub`` and the config).

The rule is JupyterHub's own (``SharedPasswordAuthenticator``, jupyterhub/authenticators/shared.py), which
refuses to start otherwise, with a traceback:

* ``WORKSHOP_PASSWORD``, the class password: 8 characters or more;
* ``WORKSHOP_ADMIN_PASSWORD``, optional, the teacher's: 32 characters or more, and not the class password.

``python deploy/jupyterhub/passwords.py`` prints the first problem as one line (nothing when both are fine),
so that the Makefile can stop with it; it always exits 0 (make reads what it prints).
"""

from __future__ import annotations

import os

CLASS_MIN = 8    # SharedPasswordAuthenticator.user_password
ADMIN_MIN = 32   # SharedPasswordAuthenticator.admin_password


def problem(environ=os.environ) -> str:
    """The first thing wrong with the hub's passwords, as one line in English and Chinese; '' when none."""
    user = environ.get("WORKSHOP_PASSWORD", "")
    admin = environ.get("WORKSHOP_ADMIN_PASSWORD", "")
    if len(user) < CLASS_MIN:
        return (f"WORKSHOP_PASSWORD must have {CLASS_MIN} or more characters (it has {len(user)}): "
                f"WORKSHOP_PASSWORD=... make hub / 班级密码至少 {CLASS_MIN} 个字符")
    if admin and len(admin) < ADMIN_MIN:
        return (f"WORKSHOP_ADMIN_PASSWORD must have {ADMIN_MIN} or more characters (it has {len(admin)}), "
                f"or leave it unset / 教师密码至少 {ADMIN_MIN} 个字符，或不设置")
    if admin and admin == user:
        return ("WORKSHOP_ADMIN_PASSWORD must differ from WORKSHOP_PASSWORD / 教师密码不能与班级密码相同")
    return ""


if __name__ == "__main__":
    print(problem())
