"""The class hub's login: names bound to people, throttled, capped at the class, each a system account.

:class:`WorkshopAuthenticator` is a JupyterHub ``LocalAuthenticator``: the account a name maps to
(``names.account_name``) is created as a Linux user on the first login (``create_system_users``), and the
``LocalProcessSpawner`` runs that student's JupyterLab as that user. Two modes (``passwords.py``):

* roster: a name of the roster and its own code (``roster.py``); any other name is refused;
* trusted room: any name and the class password, at most ``WORKSHOP_CLASS_SIZE`` accounts (the names are kept in
  ``<state>/hub/accounts.json``, root only); a new name beyond the cap is refused with one line.

The teacher (``WORKSHOP_ADMIN``, ``teacher``) logs in with ``WORKSHOP_ADMIN_PASSWORD`` in both modes.

Every refusal is one line on the login page (HTTP 403, or 429 when throttled), in English and Chinese.
:class:`Throttle` counts failures per account and per client address: past a number of free failures each new
try must wait twice as long as the last (see its numbers). A throttled try is refused *before* the password is
looked at, so the right password does not get in while the wait lasts. The counts live in the hub's memory
(a restart forgets them) and forget failures after an hour.
"""

from __future__ import annotations

import hmac
import json
import math
import sys
import time
from pathlib import Path

from jupyterhub.auth import LocalAuthenticator
from tornado import web
from traitlets import Dict, Integer, Unicode

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from names import ACCOUNT, account_name, clean_name  # noqa: E402 - next to this file
from roster import _write_private, check_code, load  # noqa: E402


class Throttle:
    """Failures per key; a key past ``free`` failures waits ``2**(n - free)`` seconds, at most ``cap``, after its last.

    Keys are ``("name", account)`` and ``("addr", ip)``. Failures older than ``window`` seconds are forgotten; a
    success clears the account's (not the address's: a guesser who knows one code must not reset their address).
    """

    WINDOW = 3600.0  # one lesson: a student who mistyped at 9:00 starts clean at 10:00

    def __init__(self, name_free: int = 3, name_cap: float = 300.0, addr_free: int = 30, addr_cap: float = 60.0,
                 clock=time.monotonic):
        # per name: 3 free tries (a student mistypes a code twice and gets it on the third), then 1, 2, 4 … s,
        # at most 5 min: after 12 failures a guesser has 12 tries an hour against one name, a student who
        # mistyped 5 times waits 4 s.
        # per address: the class size of free failures (a room behind one NAT address, everyone mistyping once),
        # then 1, 2, 4 … s up to 1 min: one address trying many names slows down for every name at once.
        self.free = {"name": name_free, "addr": addr_free}
        self.cap = {"name": name_cap, "addr": addr_cap}
        self.clock = clock
        self.failures: dict[tuple[str, str], list[float]] = {}

    def _recent(self, key) -> list[float]:
        now = self.clock()
        times = [t for t in self.failures.get(key, []) if now - t < self.WINDOW]
        if times:
            self.failures[key] = times
        else:
            self.failures.pop(key, None)
        return times

    def wait(self, account: str, addr: str) -> tuple[float, str]:
        """(seconds to wait, "name" or "addr") for the longer of the two; (0, "") when a try may go ahead."""
        out = (0.0, "")
        for kind, value in (("name", account), ("addr", addr)):
            times = self._recent((kind, value))
            over = len(times) - self.free[kind]
            if over >= 0:
                left = min(2.0 ** over, self.cap[kind]) - (self.clock() - times[-1])
                if left > out[0]:
                    out = (left, kind)
        return out

    def failed(self, account: str, addr: str) -> None:
        for key in (("name", account), ("addr", addr)):
            self.failures.setdefault(key, []).append(self.clock())

    def succeeded(self, account: str) -> None:
        self.failures.pop(("name", account), None)


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


LABELS = {  # the login page in the class's language (WORKSHOP_LANG): en, zh, or both (the default)
    "en": {"title": "Sign in to the class", "name": "Your name", "code": "Login code", "go": "Sign in"},
    "zh": {"title": "登录课堂服务器", "name": "姓名", "code": "登录码", "go": "登录"},
}


class WorkshopAuthenticator(LocalAuthenticator):
    """See the module's doc. Configured by ``jupyterhub_config.py`` from the WORKSHOP_* variables."""

    mode = Unicode("roster", help="'roster' or 'trusted'").tag(config=True)
    private_dir = Unicode(help="the hub's private folder (0700 root): roster.json, accounts.json").tag(config=True)
    class_password = Unicode(help="trusted room: the class password").tag(config=True)
    teacher = Unicode("teacher", help="the name the teacher types").tag(config=True)
    teacher_password = Unicode(help="the teacher's password ('' = no teacher login)").tag(config=True)
    class_size = Integer(30, help="trusted room: at most this many student accounts").tag(config=True)
    language = Unicode("en+zh", help="the login page's language: en, zh or en+zh").tag(config=True)
    throttle_settings = Dict(help="Throttle's keyword arguments").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.throttle = Throttle(**self.throttle_settings)

    @property
    def private(self) -> Path:
        return Path(self.private_dir)

    async def add_user(self, user):
        """Make the OS account of a ``ws-`` name only: never one for a name the hub's database or admin page holds
        otherwise (``root``, ``alice`` of an older hub), which would then be a system account made by a web form."""
        if not ACCOUNT.match(user.name):
            raise ValueError(f"{user.name!r} is not a workshop account (ws-...): no OS account is made for it")
        await super().add_user(user)

    def get_handlers(self, app):
        """The login page, and ``/hub/class-records`` for the teacher's class view (``class_records.py``)."""
        from class_records import ClassRecordsHandler

        return [*super().get_handlers(app), (r"/class-records", ClassRecordsHandler)]

    def teacher_account(self) -> str:
        return account_name(self.teacher)

    def _say(self, code: int, en: str, zh: str):
        raise web.HTTPError(code, f"{en} / {zh}" if self.language == "en+zh" else (zh if self.language == "zh" else en))

    def get_custom_html(self, base_url):
        """The login form with its labels in the class's language (JupyterHub's own form is English only)."""
        langs = [lang for lang in ("en", "zh") if lang in self.language.split("+")] or ["en"]
        label = {k: " · ".join(LABELS[lang][k] for lang in langs) for k in LABELS["en"]}
        secret = label["code"] if self.mode == "roster" else " · ".join(
            {"en": "Class password", "zh": "班级密码"}[lang] for lang in langs)
        return f"""
<form action="{{{{ authenticator_login_url }}}}" method="post" role="form">
  <div class="auth-form-header"><h1>{label['title']}</h1></div>
  <div class="auth-form-body m-auto">
    {{% if login_error %}}<p class="login_error">{{{{ login_error }}}}</p>{{% endif %}}
    <input type="hidden" name="_xsrf" value="{{{{ xsrf }}}}" />
    <label for="username_input">{label['name']}:</label>
    <input id="username_input" type="text" autocapitalize="off" autocorrect="off" autocomplete="username"
           class="form-control" name="username" value="{{{{ username or '' }}}}" autofocus="autofocus" />
    <label for="password_input">{secret}:</label>
    <input id="password_input" type="password" class="form-control" autocomplete="current-password"
           name="password" />
    <div class="feedback-container">
      <input id="login_submit" type="submit" class="btn btn-jupyter form-control" value="{label['go']}" />
    </div>
  </div>
</form>"""

    async def authenticate(self, handler, data):
        typed, secret = str(data.get("username", "")), str(data.get("password", ""))
        try:
            name, account = clean_name(typed), account_name(typed)
        except ValueError as e:
            raise web.HTTPError(403, str(e)) from None
        addr = handler.request.remote_ip if handler is not None else ""
        wait, kind = self.throttle.wait(account, addr)
        if wait > 0:
            seconds = math.ceil(wait)
            self.log.warning("Throttled login for %s from %s (%s): %d s", account, addr, kind, seconds)
            who = ("this name", "此姓名") if kind == "name" else ("this address", "此地址")
            self._say(429, f"too many failed logins for {who[0]}: wait {seconds} s and try again",
                      f"{who[1]}登录失败次数过多：请等待 {seconds} 秒后再试")
        # checked on the hub's event loop, not in a thread: a roster code costs 40 ms (scrypt), and in a trusted
        # room the read-check-write of accounts.json (the class cap) must not race another login
        if self._accepted(name, account, secret):
            self.throttle.succeeded(account)
            return {"name": account}
        self.throttle.failed(account, addr)
        self.log.warning("Failed login for %s from %s", account, addr)
        if self.mode == "roster":
            self._say(403, "wrong name or code: type your name as on your slip, and its code",
                      "姓名或登录码不对：请按纸条上的姓名和登录码输入")
        self._say(403, "wrong name or class password", "姓名或班级密码不对")

    def _accepted(self, name: str, account: str, secret: str) -> bool:
        if name == clean_name(self.teacher):
            return bool(self.teacher_password) and _same(secret, self.teacher_password)
        if self.mode == "roster":
            entry = load(self.private).get(account)
            return bool(entry) and entry.get("name") == name and check_code(entry, secret)
        if not self.class_password or not _same(secret, self.class_password):
            return False
        self._register(name, account)
        return True

    def _register(self, name: str, account: str) -> None:
        """Trusted room: record a new account, or refuse it (class full, or its account taken by another name)."""
        path = self.private / "accounts.json"
        try:
            accounts = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            accounts = {}
        if account in accounts:
            if accounts[account] != name:
                self._say(403, f"{name!r} is too close to another student's name: add an initial",
                          f"{name!r} 与另一位同学的姓名冲突：请加上首字母")
            return
        if len(accounts) >= self.class_size:
            self._say(403, f"the class is full ({self.class_size} students): ask the lecturer",
                      f"班级已满（{self.class_size} 人）：请联系老师")
        accounts[account] = name
        _write_private(path, json.dumps(accounts, ensure_ascii=False, indent=1))

    def display_names(self) -> dict[str, str]:
        """{account: the name as cleaned} of every student this hub knows (for the class view)."""
        if self.mode == "roster":
            return {account: entry.get("name", account) for account, entry in load(self.private).items()}
        try:
            return json.loads((self.private / "accounts.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

