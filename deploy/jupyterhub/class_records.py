"""``/hub/class-records``: every student's check records, read by the hub (root) for the teacher only.

Each student's records are in their own home (``~/.llm-cost-explorer/checks.jsonl``, ``explorer/classroom.py``),
which is theirs alone (0700): a student can write their own record and no one else's. The teacher's JupyterLab
runs as the teacher's own account and cannot read the homes either, so the hub reads them on the teacher's
behalf: this handler, inside the hub, answers only an admin (by the login cookie, or the teacher's server token,
which ``class_view.ipynb`` sends), and reads each home with ``classroom.read_own_records`` (no link followed,
each part owned by that student). The answer is JSON::

    {"students": [{"account": "ws-li-wei-0a5df1", "name": "li.wei", "records": [...]}, ...]}

one entry per student the hub knows (the roster's names, or the accounts of a trusted room), those who never
logged in too; the teacher is left out.
"""

from __future__ import annotations

import json
import pwd
from pathlib import Path

from jupyterhub.handlers import BaseHandler
from tornado import web

from explorer.classroom import read_own_records


class ClassRecordsHandler(BaseHandler):
    _accept_token_auth = True  # the class view notebook sends the teacher's server token
    homes: Path = Path("/nonexistent")  # set by jupyterhub_config.py

    @web.authenticated
    async def get(self):
        user = self.current_user
        if not user.admin:
            raise web.HTTPError(403, "the class view is the teacher's / 班级视图仅供老师使用")
        teacher = self.authenticator.teacher_account()
        students = []
        for account, name in sorted(self.authenticator.display_names().items(), key=lambda item: item[1]):
            if account == teacher:
                continue
            try:
                uid = pwd.getpwnam(account).pw_uid
            except KeyError:  # never logged in: no account yet
                records = []
            else:
                records = read_own_records(self.homes / account, uid)
            students.append({"account": account, "name": name, "records": records})
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps({"students": students}, ensure_ascii=False))
