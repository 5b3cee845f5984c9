"""Login drivers: how an authorization request gets from the authorize endpoint to the
redirect that carries the code (seed 001 parts 1 and 4: "the user logs in and consents").

* `FormLoginDriver` walks the server's own HTML pages with a `Browser`: it fills the login
  form (the password field and the text field before it) and approves the consent form.
  It reads the pages with the standard library's HTML parser, never with patterns that
  fit one server's markup, so it works on the mock and on other servers' simple forms.
* `ImmediateDriver` is for a session that is already logged in and has consented: it only
  follows redirects.
* `ManualDriver` prints the authorize URL for a human and catches the redirect on the
  loopback redirect_uri (or reads the pasted address).
* `refresh_token_bootstrap` is the unattended alternative: no authorization at all, the
  flows start from a refresh token in the environment.

A driver never judges the server: it reports what came back (`AuthorizationResult`) and the
checks decide. When the server serves something a driver cannot walk, it raises
`LoginError`, whose message names what was served (status, media type, page title) and
never a secret.

A page is untrusted input: the form driver reads one of at most MAX_LOGIN_PAGE_BYTES within
LOGIN_PAGE_BUDGET_S seconds (`PageUnreadable` otherwise), because the standard library's
parser needs time quadratic in the size of some malformed markup (a megabyte of unclosed
`<a ` took hours) and cannot be interrupted from outside.
"""

from __future__ import annotations

import codecs
import http.server
import math
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from typing import Any, Protocol, TextIO
from urllib.parse import parse_qsl, urljoin, urlsplit, urlunsplit

from conformance.auth.browser import Browser
from conformance.errors import ConfigError, HarnessError, UnreachableError
from conformance.http.exchange import Exchange
from conformance.http.origins import is_loopback
from conformance.profiles import read_secret

DEFAULT_APPROVE_PATTERN = r"approve|allow|accept|toestaan|akkoord|grant|yes|ja"
# A control that reads like this is never pressed to approve, even when it also matches
# the approve pattern ("Niet toestaan", "Do not allow").
_DENY_PATTERN = re.compile(r"deny|denied|reject|refuse|cancel|weiger|annuleer|\bniet\b|\bnee\b|\bno\b|\bnot\b", re.I)
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_HTML_MEDIA_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_INPUT_TYPES = frozenset({"text", "email"})
_RESULT_KEYS = ("code", "state", "error", "error_description")
LOGIN_SETTINGS_KEY = "services.auth.login"
# A login or consent page is a few kilobytes (the mock's are under 2 KiB; a vendor's with
# inline styles and scripts some tens): a page larger than this is not read.
MAX_LOGIN_PAGE_BYTES = 1024 * 1024
# Reading one page: a page of the maximum size made of ordinary markup takes 1 to 2 s
# (350,000 tags; measured on a shared 2-core machine), a real login page milliseconds.
LOGIN_PAGE_BUDGET_S = 5.0
# The parser is fed this much at a time; the time budget is checked between pieces.
_FEED_CHARS = 16 * 1024
_NOT_PAGE_ENCODINGS = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape"})


class LoginError(HarnessError):
    """The server served something a login driver cannot walk: no usable form, an error
    page, a loop, too many steps, or no redirect in time. The message says what was served."""


class CredentialsRefused(LoginError):
    """The login form came back after the credentials were sent: the user could not log in
    (wrong username or password, a lost session cookie). Nothing about the authorization
    request itself can be read from that, so a negative check that meets it is blocked."""


class PageUnreadable(CredentialsRefused):
    """A 200 HTML page on the way that the driver does not read: larger than
    MAX_LOGIN_PAGE_BYTES, or not read within the page time budget. Like refused credentials
    it says nothing about the authorization request (it may be the login form as well as
    an error page), so it derives from CredentialsRefused: a negative check that meets it
    is blocked (conformance/checks/auth/control.py, suites/auth/test_code_flow.py), never
    passed as "an error page".

    Blocked, not failed: no rule of the seed limits the size of the server's login pages or
    how its markup is written; the limits are the harness's own, so a page beyond them is a
    precondition the run could not meet (`blocked: a login through the profile's login
    driver: login: ...`, conformance/run_outcomes.py login_blocked), not a finding against
    the server."""


@dataclass
class AuthorizationResult:
    """Where the authorization ended: the redirect to the redirect_uri and its parameters.

    `location` is the raw redirect address (it carries the code: never report it);
    `pages` describes each step ("login form", "consent form", "redirect (302)", ...).

    The walk takes the response wherever the server put it, so the checks that start from a
    code can run; how it came back is kept for the check of the response's form (seed part 4:
    "via 302 redirect"; part 2: "query parameters `state` and `code`"): `status` is the
    redirect's HTTP status (None where the driver did not see it: a human's browser), and
    `in_fragment` says the parameters were read from the fragment, the query holding none."""

    location: str
    code: str | None
    state: str | None
    error: str | None
    error_description: str | None = None
    pages: list[str] = field(default_factory=list)
    consent_shown: bool = False
    extra_params: dict[str, str] = field(default_factory=dict)
    status: int | None = None
    in_fragment: bool = False

    @property
    def answer(self) -> str:
        """What the authorization ended with, in one line without the code or the address:
        the server's `error` and `error_description` when it stated why it refused."""
        if self.code is not None:
            return "a code"
        if self.error is not None:
            return f"error={self.error}" + (f" ({self.error_description})" if self.error_description else "")
        return "no code (" + (" -> ".join(self.pages[-3:]) or "no redirect") + ")"


class LoginDriver(Protocol):
    def authorize(self, browser: Browser, authorize_url: str, redirect_uri: str) -> AuthorizationResult: ...


# --- the redirect to the client ----------------------------------------------------------------
def is_redirect_uri(location: str, redirect_uri: str) -> bool:
    """Whether `location` is the redirect_uri plus response parameters. A bare prefix test
    would take `.../callback-evil` for `.../callback`; the next character must end the URI."""
    if location == redirect_uri:
        return True
    if not location.startswith(redirect_uri):
        return False
    following = location[len(redirect_uri)]
    return following in "?#" or (following == "&" and "?" in redirect_uri)


def parse_authorization_response(
    location: str, *, pages: list[str], consent_shown: bool, status: int | None = None
) -> AuthorizationResult:
    """RFC 6749 4.1.2: the response parameters of the redirect's query (or, when the query
    has none, its fragment: `in_fragment`, a finding of the check of the response's form).
    Parameters other than code, state, error and error_description (`iss`, `error_uri`, ...)
    go to `extra_params`; a repeated one keeps its first value. `status`: the redirect's."""
    parts = urlsplit(location)
    params = _first_values(parts.query)
    in_fragment = False
    if not any(key in params for key in ("code", "error")) and parts.fragment:
        fragment = _first_values(parts.fragment)
        in_fragment = any(key in fragment for key in ("code", "error"))
        params = fragment
    return AuthorizationResult(
        location=location,
        code=params.get("code"),
        state=params.get("state"),
        error=params.get("error"),
        error_description=params.get("error_description"),
        pages=pages,
        consent_shown=consent_shown,
        extra_params={k: v for k, v in params.items() if k not in _RESULT_KEYS},
        status=status,
        in_fragment=in_fragment,
    )


def _first_values(query: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        values.setdefault(key, value)
    return values


# --- HTML forms (stdlib parser) ------------------------------------------------------------------
@dataclass
class Control:
    """One form control as HTML defines it: an input, button, select or textarea."""

    tag: str
    type: str
    name: str | None
    value: str
    text: str = ""
    checked: bool = False
    disabled: bool = False
    autocomplete: str = ""

    @property
    def is_submit(self) -> bool:
        return (self.tag == "input" and self.type in ("submit", "image")) or (
            self.tag == "button" and self.type == "submit"
        )

    def label(self) -> str:
        """What a user reads on the control (its value for an input, its text for a button)."""
        return (self.text or self.value).strip() if self.tag == "button" else self.value


@dataclass
class Form:
    action: str
    method: str
    controls: list[Control] = field(default_factory=list)

    def first(self, type_: str) -> Control | None:
        return next((c for c in self.controls if c.tag == "input" and c.type == type_ and not c.disabled), None)

    def named(self, name: str) -> Control | None:
        return next((c for c in self.controls if c.name == name and not c.disabled), None)

    def submits(self) -> list[Control]:
        return [c for c in self.controls if c.is_submit and not c.disabled]


class _FormParser(HTMLParser):
    """Collects forms, their controls in document order, the title and `<base href>`.

    Text (the title, a button's or textarea's, an option's) is collected in lists and joined
    once: `+=` on an attribute copies the whole string each time, quadratic when a page
    splits a long title into a hundred thousand pieces."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self.base_href: str | None = None
        self._title: list[str] = []
        self._form: Form | None = None
        self._text_of: Control | None = None  # a button or textarea collecting its text
        self._text: list[str] = []  # ... its text so far
        self._select: Control | None = None
        self._option: dict[str, Any] | None = None
        self._select_seen = False  # the select has had an option (its default value)
        self._select_chosen = False  # the select has had a `selected` option
        self._in_title = False

    @property
    def title(self) -> str:
        return "".join(self._title)

    def read(self, text: str, deadline: float, budget_s: float) -> None:
        """Parses `text` as the whole page, giving up (PageUnreadable) once `deadline`
        (time.monotonic) has passed. The text is fed in pieces and the time is checked
        between them. A construct that has not ended yet (a tag without its `>`) makes the
        parser keep everything after it and search it again at each piece: once it is
        longer than a piece, the rest of the page goes in at once, so that search is made
        once (parsing is linear in the page until a construct that never ends). At the end,
        `close()` would treat each construct that never ends (an `<a ` or `<!--` without
        its `>`) as text up to the next `>` or `<` and go on, each time searching the rest
        of the page: quadratic, in one call (hours for a megabyte of `<a `). The same is
        done here one construct at a time, with the time checked in between."""
        start = 0
        while start < len(text):
            _within(deadline, budget_s)
            piece = len(text) if len(self.rawdata) > _FEED_CHARS else _FEED_CHARS
            self.feed(text[start:start + piece])
            start += piece
        while len(self.rawdata) > 1 and self.rawdata.startswith("<") and not self.cdata_elem:
            _within(deadline, budget_s)
            self._unterminated_as_text()
            self.feed("")
        _within(deadline, budget_s)
        self.close()
        self._end_text()

    def _unterminated_as_text(self) -> None:
        """What HTMLParser.goahead(end=True) does with a construct that does not end: text up
        to and with the next `>`, else up to the next `<`, else its `<` alone."""
        rawdata = self.rawdata
        end = rawdata.find(">", 1)
        if end < 0:
            end = rawdata.find("<", 1)
            if end < 0:
                end = 1
        else:
            end += 1
        self.handle_data(unescape(rawdata[:end]))
        self.updatepos(0, end)
        self.rawdata = rawdata[end:]

    def parse_marked_section(self, i: int, report: int = 1) -> int:
        """`<![foo[` with a keyword the standard library does not know raises AssertionError
        there; HTML reads it as a bogus comment (up to the next `>`)."""
        try:
            return super().parse_marked_section(i, report)
        except AssertionError:
            return self.parse_bogus_comment(i)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v if v is not None else "") for k, v in attrs}
        if tag == "title":
            self._in_title = True
        elif tag == "base" and self.base_href is None and "href" in a:
            self.base_href = a["href"]
        elif tag == "form" and self._form is None:  # HTML ignores a nested form tag
            self._form = Form(action=a.get("action", ""), method=a.get("method", "get").lower() or "get")
            self.forms.append(self._form)
        elif self._form is not None:
            self._control(tag, a)

    def _control(self, tag: str, a: dict[str, str]) -> None:
        assert self._form is not None
        common = {"name": a.get("name") or None, "disabled": "disabled" in a,
                  "autocomplete": a.get("autocomplete", "").lower()}
        if tag == "input":
            type_ = a.get("type", "text").lower() or "text"
            default = "on" if type_ in ("checkbox", "radio") else ""
            self._form.controls.append(
                Control("input", type_, value=a.get("value", default), checked="checked" in a, **common)
            )
        elif tag == "button":
            control = Control("button", a.get("type", "submit").lower() or "submit", value=a.get("value", ""),
                              **common)
            self._form.controls.append(control)
            self._start_text(control)
        elif tag == "textarea":
            control = Control("textarea", "textarea", value="", **common)
            self._form.controls.append(control)
            self._start_text(control)
        elif tag == "select":
            self._select = Control("select", "select", value="", **common)
            self._select_seen = self._select_chosen = False
            self._form.controls.append(self._select)
        elif tag == "option" and self._select is not None:
            self._close_option()
            self._option = {"value": a.get("value"), "text": [], "selected": "selected" in a}

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag == "form":
            self._form = None
        elif tag in ("button", "textarea"):
            self._end_text()
        elif tag == "option":
            self._close_option()
        elif tag == "select":
            self._close_option()
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        if self._text_of is not None:
            self._text.append(data)
        if self._option is not None:
            self._option["text"].append(data)

    def _start_text(self, control: Control) -> None:
        self._end_text()
        self._text_of, self._text = control, []

    def _end_text(self) -> None:
        if self._text_of is not None:
            self._text_of.text += "".join(self._text)
        self._text_of, self._text = None, []

    def _close_option(self) -> None:
        """A select submits its selected option, or its first when none is selected."""
        option, self._option = self._option, None
        if option is None or self._select is None:
            return
        value = option["value"] if option["value"] is not None else " ".join("".join(option["text"]).split())
        if option["selected"] and not self._select_chosen:
            self._select.value, self._select_chosen = value, True
        elif not self._select_seen:
            self._select.value = value
        self._select_seen = True


@dataclass
class Page:
    """A parsed 200 HTML page: its address (for relative actions), forms and title."""

    url: str
    forms: list[Form]
    title: str

    @classmethod
    def parse(cls, raw: Exchange, *, budget_s: float = LOGIN_PAGE_BUDGET_S) -> Page:
        """The page's forms and title; PageUnreadable when it is larger than
        MAX_LOGIN_PAGE_BYTES or not read within `budget_s` seconds. The message says the
        size or the time, never the page's content."""
        deadline = time.monotonic() + budget_s
        if raw.truncated or len(raw.body) > MAX_LOGIN_PAGE_BYTES:
            size = f"more than {len(raw.body)}" if raw.truncated else f"{len(raw.body)}"
            raise PageUnreadable(f"the page is {size} bytes, over the {_mib(MAX_LOGIN_PAGE_BYTES)} cap of a login page")
        parser = _FormParser()
        parser.read(raw.body.decode(_charset(raw), "replace"), deadline, budget_s)
        base = urljoin(raw.url, parser.base_href) if parser.base_href else raw.url
        return cls(url=base, forms=parser.forms, title=" ".join(parser.title.split())[:80])


def _within(deadline: float, budget_s: float) -> None:
    if time.monotonic() > deadline:
        raise PageUnreadable(f"the login page took longer than {budget_s:g} s to read")


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):g} MiB"


def _charset(raw: Exchange) -> str:
    """The page's charset when Python has it as a text encoding for pages, else UTF-8. Not
    the codecs that are no page encoding: punycode decodes in quadratic time (a megabyte
    would take most of a minute, in one call), idna and the escape codecs are for names
    and source code."""
    content_type = raw.response_headers.get("content-type") or ""
    match = re.search(r"charset\s*=\s*\"?([\w.:-]+)", content_type, re.I)
    if match:
        try:
            "".encode(match.group(1))
            if codecs.lookup(match.group(1)).name not in _NOT_PAGE_ENCODINGS:
                return match.group(1)
        except LookupError:
            pass
    return "utf-8"


def form_fields(form: Form, fill: dict[int, str], submitter: Control | None) -> list[tuple[str, str]]:
    """The form data set HTML would submit: named, enabled controls in document order,
    checked boxes only, the one submit control pressed; `fill` overrides values by control
    identity (the username and password inputs)."""
    fields: list[tuple[str, str]] = []
    for control in form.controls:
        if control.disabled or not control.name:
            continue
        if control.is_submit or control.type in ("button", "reset", "file"):
            if control is submitter:
                fields.append((control.name, control.value))
            continue
        if control.type in ("checkbox", "radio") and not control.checked:
            continue
        value = control.text if control.tag == "textarea" else control.value
        fields.append((control.name, fill.get(id(control), value)))
    return fields


# --- one walk through the server's pages ---------------------------------------------------------
@dataclass
class _Walk:
    """Counts the steps of one authorization, remembers what each was, and turns a
    transport failure after the first step into a LoginError (the server was reachable)."""

    browser: Browser
    redirect_uri: str
    max_steps: int
    pages: list[str] = field(default_factory=list)
    consent_shown: bool = False
    steps: int = 0
    origin: str | None = None  # of the first step: every later step must stay on it

    def send(
        self, method: str, url: str, fields: list[tuple[str, str]] | None = None,
        secret_fields: frozenset[str] = frozenset(),
    ) -> tuple[Exchange, Exchange]:
        if self.steps >= self.max_steps:
            raise LoginError(
                f"no redirect to the redirect_uri after {self.max_steps} steps: the server kept serving "
                f"{' -> '.join(self.pages[-4:]) or 'pages'} (a loop?)"
            )
        here = _origin_of(url)
        if self.origin is None:
            self.origin = here
        elif here != self.origin:
            # A login walks the authorization server's own pages; another origin is not followed.
            raise LoginError(f"step {self.steps + 1} of the login leads to another origin ({here}, not "
                             f"{self.origin}): not followed (log in with the manual driver if that is intended)")
        self.steps += 1
        try:
            if method == "POST":
                return self.browser.post_form(url, fields or [], secret_fields=secret_fields)
            return self.browser.get(url, fields, secret_fields=secret_fields)
        except UnreachableError as exc:
            if self.steps == 1:
                raise
            raise LoginError(f"step {self.steps} of the login failed ({' -> '.join(self.pages[-3:])}): {exc}") from None

    def location(self, raw: Exchange, redacted: Exchange) -> str:
        """The redirect target, resolved against the current URL (RFC 9110 10.2.2)."""
        location = raw.response_headers.get("location")
        if not location:
            raise LoginError(f"a redirect without a Location header: {redacted.summary()}")
        return urljoin(raw.url, location.strip())

    def finish(self, location: str, status: int) -> AuthorizationResult:
        self.pages.append(f"redirect to the redirect_uri ({status})")
        return parse_authorization_response(location, pages=self.pages, consent_shown=self.consent_shown,
                                            status=status)


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _follow(walk: _Walk, raw: Exchange, redacted: Exchange,
            last: tuple[str, list[tuple[str, str]] | None, frozenset[str]]) -> tuple[Exchange, Exchange] | str:
    """A 3xx: the location when it is the redirect_uri, else the next exchange. 307 and 308
    repeat the method and body (as browsers do); the other redirects continue with GET."""
    location = walk.location(raw, redacted)
    if is_redirect_uri(location, walk.redirect_uri):
        return location
    if urlsplit(location).scheme not in ("http", "https"):
        raise LoginError(f"a redirect to a {urlsplit(location).scheme!r} address that is not the redirect_uri: "
                         f"{redacted.summary()}")
    walk.pages.append(f"redirect ({raw.status})")
    method, fields, secret = last if raw.status in (307, 308) else ("GET", None, frozenset())
    return walk.send(method, location, fields, secret)


def _served(redacted: Exchange, page: Page | None = None) -> str:
    """What the server served, for a LoginError: status, media type, title; no secrets."""
    media = redacted.media_type or "no content type"
    title = f", title {page.title!r}" if page is not None and page.title else ""
    return f"{redacted.status} {media}{title} at {redacted.summary().split(' -> ')[0]}"


def _html_page(raw: Exchange, redacted: Exchange, budget_s: float = LOGIN_PAGE_BUDGET_S) -> Page:
    """A 200 HTML page to read forms from; anything else ends the login."""
    if raw.status != 200 or raw.media_type not in _HTML_MEDIA_TYPES:
        raise LoginError(f"the login cannot go on: the server answered {_served(redacted, _titled(raw))}")
    try:
        return Page.parse(raw, budget_s=budget_s)
    except PageUnreadable as exc:
        raise PageUnreadable(f"{exc}: {_served(redacted)}") from None


def _titled(raw: Exchange) -> Page | None:
    """An HTML page read for its title only (for a LoginError's message): none when it is
    not HTML or cannot be read within the limits."""
    if raw.media_type not in _HTML_MEDIA_TYPES:
        return None
    try:
        return Page.parse(raw)
    except PageUnreadable:
        return None


# --- the drivers -----------------------------------------------------------------------------------
class FormLoginDriver:
    """Logs in through the server's HTML forms, and approves its consent form."""

    def __init__(
        self,
        username: str,
        password: str,
        *,
        username_field: str | None = None,
        password_field: str | None = None,
        approve_pattern: str = DEFAULT_APPROVE_PATTERN,
        max_steps: int = 12,
        page_budget_s: float = LOGIN_PAGE_BUDGET_S,
    ) -> None:
        """`page_budget_s`: the time reading one page may take (PageUnreadable after it)."""
        self._username = username
        self._password = password
        self._username_field = username_field
        self._password_field = password_field
        self._approve = re.compile(approve_pattern, re.I)
        self._max_steps = max_steps
        self._page_budget_s = page_budget_s

    def __repr__(self) -> str:  # never the credentials
        return f"FormLoginDriver(username_field={self._username_field!r}, password_field={self._password_field!r})"

    def authorize(self, browser: Browser, authorize_url: str, redirect_uri: str) -> AuthorizationResult:
        walk = _Walk(browser, redirect_uri, self._max_steps)
        last: tuple[str, list[tuple[str, str]] | None, frozenset[str]] = ("GET", None, frozenset())
        redacted, raw = walk.send("GET", authorize_url)
        credentials_sent = False
        while True:
            if raw.status in _REDIRECT_STATUSES:
                followed = _follow(walk, raw, redacted, last)
                if isinstance(followed, str):
                    return walk.finish(followed, raw.status)
                redacted, raw = followed
                continue
            page = _html_page(raw, redacted, self._page_budget_s)
            step = self._step(page, redacted)
            if step.kind == "login form":
                if credentials_sent:
                    raise CredentialsRefused(
                        "the login form was served again after the credentials were sent "
                        f"(wrong username or password, or the session cookie was lost): {_served(redacted, page)}"
                    )
                credentials_sent = True
                _refuse_plain_http(step.url)
            walk.consent_shown = walk.consent_shown or step.kind == "consent form"
            walk.pages.append(step.kind)
            last = (step.method, step.fields, step.secret_fields)
            redacted, raw = walk.send(step.method, step.url, step.fields, step.secret_fields)

    # --- choosing what to do with a page ----------------------------------------------------
    def _step(self, page: Page, redacted: Exchange) -> _Submission:
        login = next((f for f in page.forms if self._password_input(f) is not None), None)
        if login is not None:
            return self._login(page, login)
        username_form = next((f for f in page.forms if self._username_only(f) is not None), None)
        if username_form is not None:
            control = self._username_only(username_form)
            assert control is not None
            return _submission(page, username_form, "username form", {id(control): self._username},
                               _login_button(username_form, self._approve), frozenset())
        for form in page.forms:
            button = self._approve_control(form)
            if button is not None:
                return _submission(page, form, "consent form", {}, button, frozenset())
        what = f"{len(page.forms)} form(s) without a password field or an approve control" if page.forms else "no form"
        raise LoginError(f"a page with {what}: {_served(redacted, page)}")

    def _login(self, page: Page, form: Form) -> _Submission:
        password = self._password_input(form)
        assert password is not None and password.name is not None
        fill = {id(password): self._password}
        username = self._username_input(form, password)
        if username is not None:
            fill[id(username)] = self._username
        return _submission(page, form, "login form", fill, _login_button(form, self._approve),
                           frozenset({password.name}))

    def _password_input(self, form: Form) -> Control | None:
        if self._password_field:
            control = form.named(self._password_field)
            return control if control is not None and control.tag == "input" else None
        control = form.first("password")
        return control if control is not None and control.name else None

    def _username_input(self, form: Form, password: Control) -> Control | None:
        """The configured field, else the nearest text or e-mail input before the password
        field (a login form may also carry a search box or a "remember me" box)."""
        if self._username_field:
            return form.named(self._username_field)
        before = form.controls[: form.controls.index(password)]
        candidates = [c for c in before if c.tag == "input" and c.type in _TEXT_INPUT_TYPES and c.name
                      and not c.disabled]
        return candidates[-1] if candidates else None

    def _username_only(self, form: Form) -> Control | None:
        """The first page of a two-step login: the configured username field, or an input
        marked `autocomplete=username`, in a form without a password field."""
        for control in form.controls:
            if control.tag != "input" or not control.name or control.disabled:
                continue
            if control.name == self._username_field or "username" in control.autocomplete.split():
                return control
        return None

    def _approve_control(self, form: Form) -> Control | None:
        """The submit control that approves: its label or value read as approval (and not
        as a refusal); failing that, its name does."""
        submits = form.submits()
        for control in submits:
            words = f"{control.label()} {control.value}"
            if self._approve.search(words) and not _DENY_PATTERN.search(words):
                return control
        for control in submits:
            if control.name and self._approve.search(control.name) and not _DENY_PATTERN.search(control.name):
                return control
        return None


@dataclass
class _Submission:
    kind: str
    method: str
    url: str
    fields: list[tuple[str, str]]
    secret_fields: frozenset[str]


def _submission(page: Page, form: Form, kind: str, fill: dict[int, str], submitter: Control | None,
                secret_fields: frozenset[str]) -> _Submission:
    """HTML form submission: the action resolved against the page (for GET, Browser.get
    replaces its query with the fields)."""
    action = urljoin(page.url, form.action) if form.action else page.url
    parts = urlsplit(action)
    method = "POST" if form.method == "post" else "GET"
    url = urlunsplit(parts._replace(fragment=""))
    if parts.scheme not in ("http", "https"):
        raise LoginError(f"the {kind} submits to a {parts.scheme!r} address")
    return _Submission(kind, method, url, form_fields(form, fill, submitter), secret_fields)


_CANCEL_PATTERN = re.compile(r"cancel|annuleer|back|terug|forgot|vergeten|register|registreer", re.I)


def _login_button(form: Form, approve: re.Pattern[str]) -> Control | None:
    """The control that logs in: one that reads as login or approval, else the first that
    does not read as cancel, else none (pressing Enter submits without one)."""
    submits = form.submits()
    login = re.compile(r"log\s*in|sign\s*in|inloggen|aanmelden|submit|continue|doorgaan|volgende|next", re.I)
    for control in submits:
        if login.search(control.label()) or approve.search(control.label()):
            return control
    return next((c for c in submits if not _CANCEL_PATTERN.search(f"{c.label()} {c.name or ''}")), None)


def _refuse_plain_http(url: str) -> None:
    """A password goes over TLS, or to a loopback mock; never in clear text across a network."""
    parts = urlsplit(url)
    if parts.scheme == "http" and not is_loopback(parts.hostname or ""):
        raise LoginError(f"refusing to send the password over plain http to {parts.hostname}")


class ImmediateDriver:
    """For a session that is logged in and has consented: the authorize request only
    redirects. A page on the way (a login or consent form) is a LoginError."""

    def __init__(self, max_redirects: int = 5) -> None:
        self._max_redirects = max_redirects

    def authorize(self, browser: Browser, authorize_url: str, redirect_uri: str) -> AuthorizationResult:
        walk = _Walk(browser, redirect_uri, self._max_redirects + 1)
        redacted, raw = walk.send("GET", authorize_url)
        while raw.status in _REDIRECT_STATUSES:
            followed = _follow(walk, raw, redacted, ("GET", None, frozenset()))
            if isinstance(followed, str):
                return walk.finish(followed, raw.status)
            redacted, raw = followed
        page = _titled(raw)
        raise LoginError(
            "the immediate login driver expects only redirects (a logged-in session that has consented), "
            f"but the server answered {_served(redacted, page)}"
        )


# --- a human in a browser -------------------------------------------------------------------------
class ManualDriver:
    """Prints the authorize URL for a human and waits for the redirect to the redirect_uri.

    With `listen`, a tiny HTTP server on the loopback redirect_uri catches the browser's
    redirect; without it, the human pastes the address the browser was sent to (read from
    `answers`, standard input by default). `ready` is set once the driver waits, so a test
    can play the human without sleeping."""

    def __init__(
        self,
        *,
        timeout_s: float = 300,
        out: TextIO | None = None,
        listen: bool = True,
        answers: TextIO | None = None,
    ) -> None:
        self._timeout_s = timeout_s
        self._out = out
        self._listen = listen
        self._answers = answers
        self.ready = threading.Event()

    def authorize(self, browser: Browser, authorize_url: str, redirect_uri: str) -> AuthorizationResult:
        """`browser` is unused: the human's own browser makes the requests, nothing is recorded."""
        self.ready.clear()
        out = self._out or sys.stderr
        arrived = _Arrival()
        if self._listen:
            with _RedirectCatcher(redirect_uri, arrived):
                self._prompt(out, authorize_url, f"Waiting for your browser to come back to {redirect_uri}")
                self._wait(arrived, out)
        else:
            _read_line_in_background(self._answers or sys.stdin, arrived)
            self._prompt(out, authorize_url, f"Then paste the address your browser shows ({redirect_uri}?...)")
            self._wait(arrived, out)
        location = arrived.location or ""
        if not is_redirect_uri(location, redirect_uri):
            raise LoginError(f"the pasted address is not the redirect_uri {redirect_uri}")
        return parse_authorization_response(
            location, pages=["manual login in a browser", "redirect to the redirect_uri"], consent_shown=False
        )

    def _prompt(self, out: TextIO, authorize_url: str, then: str) -> None:
        out.write(f"\nOpen this address in a browser, log in and give consent:\n\n  {authorize_url}\n\n{then}.\n")
        out.flush()
        self.ready.set()

    def _wait(self, arrived: _Arrival, out: TextIO) -> None:
        """Waits on the arrival event, showing the seconds left at most once a second."""
        deadline = time.monotonic() + self._timeout_s
        interactive = bool(getattr(out, "isatty", lambda: False)())
        shown: int | None = None
        while not arrived.event.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                out.write("\n")
                out.flush()
                raise LoginError(f"no redirect within {self._timeout_s:g} s")
            seconds = math.ceil(left)
            if seconds != shown and (interactive or shown is None or seconds % 30 == 0):
                out.write(f"\r{seconds:4d} s left " if interactive else f"{seconds} s left\n")
                out.flush()
                shown = seconds
            arrived.event.wait(min(1.0, left))
        if interactive:
            out.write("\n")
        out.write("Redirect received.\n")
        out.flush()


@dataclass
class _Arrival:
    event: threading.Event = field(default_factory=threading.Event)
    location: str | None = None

    def deliver(self, location: str) -> None:
        if not self.event.is_set():
            self.location = location
            self.event.set()


_CLOSE_PAGE = (b"<!doctype html><html><head><meta charset=utf-8><title>Authorization received</title></head>"
               b"<body><p>The conformance harness received the authorization response. "
               b"You may close this page.</p></body></html>")


class _IPv6Server(http.server.HTTPServer):
    address_family = socket.AF_INET6


class _RedirectCatcher:
    """A one-purpose HTTP server on the loopback redirect_uri, served from a thread."""

    def __init__(self, redirect_uri: str, arrived: _Arrival) -> None:
        parts = urlsplit(redirect_uri)
        host = parts.hostname or ""
        if parts.scheme != "http" or not is_loopback(host):
            raise ConfigError(
                f"{LOGIN_SETTINGS_KEY}.driver = 'manual' listens on the redirect_uri, which must be "
                f"http on a loopback address, 127.0.0.1 or [::1] (not a name such as localhost, which the "
                f"browser's resolver may send elsewhere; services.auth.redirect_uri is {redirect_uri})"
            )
        try:
            port = parts.port or 80
        except ValueError:
            raise ConfigError(f"services.auth.redirect_uri has no valid port: {redirect_uri}") from None
        self._path = parts.path or "/"
        self._origin = f"{parts.scheme}://{parts.netloc}"
        server_class = _IPv6Server if ":" in host else http.server.HTTPServer
        try:
            self._server = server_class((host, port), self._handler(arrived))
        except OSError as exc:
            raise LoginError(f"cannot listen on {parts.netloc} for the redirect: {exc.strerror or exc}") from None
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="manual-login-redirect", daemon=True)

    def _handler(self, arrived: _Arrival) -> type[http.server.BaseHTTPRequestHandler]:
        expected_path, origin = self._path, self._origin

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                parts = urlsplit(self.path)
                params = dict(parse_qsl(parts.query, keep_blank_values=True))
                if parts.path != expected_path or not ({"code", "error"} & params.keys()):
                    self._answer(404, b"<!doctype html><title>Not found</title><p>Not the redirect_uri.</p>")
                    return
                arrived.deliver(origin + self.path)
                self._answer(200, _CLOSE_PAGE)

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silent: the request line carries the authorization code."""

        return Handler

    def __enter__(self) -> _RedirectCatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


def _read_line_in_background(stream: TextIO, arrived: _Arrival) -> None:
    """Reads the pasted address without blocking the countdown. The daemon thread may stay
    blocked on the stream after a time-out; it ends with the process or the stream."""

    def read() -> None:
        try:
            line = stream.readline()
        except (OSError, ValueError):
            return
        if line.strip():
            arrived.deliver(line.strip())

    threading.Thread(target=read, name="manual-login-paste", daemon=True).start()


# --- unattended: a refresh token instead of a login -----------------------------------------------
def refresh_token_bootstrap(env_var: str) -> str:
    """The refresh token an unattended run starts from (seed part 4, step 4); a missing
    variable is a ConfigError that names it."""
    value = read_secret(env_var, purpose="refresh token for unattended runs", required=True)
    assert value is not None  # required: a missing variable raised ConfigError above
    return value


# --- from a profile --------------------------------------------------------------------------------
_DRIVER_BUILDERS: dict[str, Callable[[dict[str, Any], dict[str, str]], LoginDriver]] = {}


def driver_from_settings(settings: dict[str, Any], secrets: dict[str, str]) -> LoginDriver:
    """A driver from a profile's `[services.auth.login]` table; `secrets` holds the already
    read `username` and `password` for the form driver."""
    name = settings.get("driver", "form")
    builder = _DRIVER_BUILDERS.get(name)
    if builder is None:
        raise ConfigError(
            f"{LOGIN_SETTINGS_KEY}.driver: unknown login driver {name!r} "
            f"(one of: {', '.join(sorted(_DRIVER_BUILDERS))}; 'refresh_token' runs without a login driver)"
        )
    return builder(settings, secrets)


def _form_driver(settings: dict[str, Any], secrets: dict[str, str]) -> LoginDriver:
    missing = [key for key in ("username", "password") if not secrets.get(key)]
    if missing:
        raise ConfigError(
            f"{LOGIN_SETTINGS_KEY}.driver = 'form' needs the test user's "
            f"{' and '.join(missing)} (services.auth.secrets.{missing[0]} names the environment variable)"
        )
    pattern = settings.get("approve_pattern", DEFAULT_APPROVE_PATTERN)
    try:
        re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise ConfigError(f"{LOGIN_SETTINGS_KEY}.approve_pattern is not a regular expression: {exc}") from None
    return FormLoginDriver(
        secrets["username"], secrets["password"],
        username_field=settings.get("username_field"), password_field=settings.get("password_field"),
        approve_pattern=pattern,
    )


def _immediate_driver(settings: dict[str, Any], secrets: dict[str, str]) -> LoginDriver:
    return ImmediateDriver()


def _manual_driver(settings: dict[str, Any], secrets: dict[str, str]) -> LoginDriver:
    timeout = settings.get("timeout_s", 300)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError(f"{LOGIN_SETTINGS_KEY}.timeout_s must be a positive number of seconds, not {timeout!r}")
    return ManualDriver(timeout_s=float(timeout))


_DRIVER_BUILDERS.update({"form": _form_driver, "immediate": _immediate_driver, "manual": _manual_driver})
