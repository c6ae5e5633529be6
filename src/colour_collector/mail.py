"""The mail adapters: implement ``service.ports.Mailer``.

* :class:`OutboxMailer` writes each mail as a file (``.eml``, RFC 5322, openable by any mail
  program) in a directory: development and tests, where nothing must leave the machine.
* :class:`SmtpMailer` hands each mail to an SMTP server with the standard library's
  :mod:`smtplib` (STARTTLS and a login when configured): production.

Both build the same message (:func:`message`). Standard library only.
"""

from __future__ import annotations

import logging
import secrets
import smtplib
import ssl
import time
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from colour_collector.whole_files import write_whole

SMTP_TIMEOUT_S = 10.0
"""Seconds an SMTP connection or reply may take before the send fails."""


def message(sender: str, to: str, subject: str, text: str) -> EmailMessage:
    """A plain-text mail from ``sender`` to ``to``."""
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = to
    mail["Subject"] = subject
    mail["Date"] = formatdate(localtime=False, usegmt=True)
    mail["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    mail.set_content(text)
    return mail


_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class OutboxMailer:
    """Writes each mail to ``directory`` as ``<time in ns>-<random>.eml`` (sorted by name, the
    oldest first). A file appears whole or not at all (``whole_files``)."""

    directory: Path
    """Where the mails go (created when needed)."""
    sender: str = "Colour Collector <no-reply@localhost>"
    """The From address."""

    def send(self, to: str, subject: str, text: str) -> None:
        """Write the mail to the outbox directory."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{time.time_ns():020d}-{secrets.token_hex(4)}.eml"
        write_whole(path, bytes(message(self.sender, to, subject, text)))
        # Development: the mail (a confirmation link, say) is read from the file the log names.
        _log.info("mail to %s (%s) written to %s", to, subject, path)


@dataclass(frozen=True, slots=True)
class SmtpMailer:
    """Sends each mail through an SMTP server, one connection a mail."""

    host: str
    """The SMTP server's host name."""
    port: int
    """Its port (587 for submission with STARTTLS, 25 between servers)."""
    sender: str
    """The From address."""
    user: str | None = None
    """The login, if the server wants one (only over STARTTLS)."""
    password: str | None = None
    """The login's password."""
    starttls: bool = True
    """Upgrade the connection to TLS (certificate checked) before anything else is sent."""
    tls_context: ssl.SSLContext | None = None
    """The TLS settings (default: the system's trusted certificates, the host name checked)."""

    def send(self, to: str, subject: str, text: str) -> None:
        """Hand the mail to the server; ``smtplib.SMTPException`` or ``OSError`` if it cannot."""
        mail = message(self.sender, to, subject, text)
        with smtplib.SMTP(self.host, self.port, timeout=SMTP_TIMEOUT_S) as smtp:
            if self.starttls:
                smtp.starttls(context=self.tls_context or ssl.create_default_context())
            if self.user:
                smtp.login(self.user, self.password or "")
            smtp.send_message(mail)
