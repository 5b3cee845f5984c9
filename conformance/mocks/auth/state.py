"""What one mock authorization server keeps between requests: browser sessions, pending
authorization requests, remembered consents, the token store and the assertion validator.
Each create_app call makes its own, so two mock servers share nothing."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass

from conformance.mocks.auth.assertion import AssertionValidator
from conformance.mocks.auth.config import AuthMockConfig
from conformance.mocks.auth.tokens import TokenStore
from conformance.mocks.faults import Fault, FaultSet

PENDING_LIFETIME_S = 600  # an authorization request must be completed within 10 minutes
MAX_PENDING = 10_000
MAX_SESSIONS = 10_000


@dataclass
class PendingRequest:
    """A validated authorization request waiting for login and consent."""

    request_id: str
    session: str
    client_id: str
    redirect_uri: str
    scope: str
    state: str | None
    challenge: str | None
    method: str | None
    created_at: float


class AuthMock:
    def __init__(self, config: AuthMockConfig, faults: FaultSet) -> None:
        self.config = config
        self.faults = faults
        self.tokens = TokenStore(config)
        self.validator = AssertionValidator(config, faults)
        self._lock = threading.Lock()
        self._sessions: dict[str, str | None] = {}  # session id -> logged-in username
        self._pending: dict[str, PendingRequest] = {}
        self._consents: set[tuple[str, str, str]] = set()  # (user, client, scope)

    def on(self, fault: str | Fault) -> bool:
        """Whether a fault is switched on: its name, or a Fault declared beside the behaviour."""
        return self.faults.on(fault if isinstance(fault, str) else fault.name)

    def now(self) -> float:
        return self.config.clock.now()

    # --- sessions ------------------------------------------------------------------------------
    def session_user(self, session: str | None) -> str | None:
        with self._lock:
            return self._sessions.get(session) if session else None

    def has_session(self, session: str | None) -> bool:
        with self._lock:
            return session is not None and session in self._sessions

    def new_session(self) -> str:
        session = secrets.token_urlsafe(24)
        with self._lock:
            if len(self._sessions) >= MAX_SESSIONS:
                self._sessions.pop(next(iter(self._sessions)))
            self._sessions[session] = None
        return session

    def log_in(self, session: str, username: str) -> None:
        with self._lock:
            self._sessions[session] = username

    # --- pending authorization requests -------------------------------------------------------
    def add_pending(self, pending: PendingRequest) -> None:
        with self._lock:
            if len(self._pending) >= MAX_PENDING:
                self._pending.pop(next(iter(self._pending)))
            self._pending[pending.request_id] = pending

    def pending(self, request_id: str | None, session: str | None) -> PendingRequest | None:
        """The pending request, only for the browser session that made it and while fresh."""
        with self._lock:
            pending = self._pending.get(request_id) if request_id else None
        if pending is None or pending.session != session:
            return None
        if self.now() - pending.created_at > PENDING_LIFETIME_S:
            self.drop_pending(pending)
            return None
        return pending

    def drop_pending(self, pending: PendingRequest) -> bool:
        """Remove it; False when another request already did (a double submit)."""
        with self._lock:
            return self._pending.pop(pending.request_id, None) is not None

    # --- consent -------------------------------------------------------------------------------
    def consented(self, user: str, client_id: str, scope: str | None) -> bool:
        """Whether the user consented to every scope of `scope` for the client (None: to any scope)."""
        with self._lock:
            if scope is None:
                return any(u == user and c == client_id for u, c, _ in self._consents)
            return all((user, client_id, s) in self._consents for s in scope.split())

    def remember_consent(self, user: str, client_id: str, scope: str) -> None:
        with self._lock:
            self._consents.update((user, client_id, s) for s in scope.split())
