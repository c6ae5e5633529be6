"""The mail adapters against real things: the SMTP adapter against a real SMTP server on a local
socket (aiosmtpd), with STARTTLS and a login, and the outbox against a directory."""

from __future__ import annotations

import errno
import os
import ssl
import subprocess
from pathlib import Path

import pytest

from colour_collector import whole_files
from colour_collector.mail import OutboxMailer, SmtpMailer
from support import SmtpServer, free_port, outbox_mails

SENDER = "Colour Collector <no-reply@play.example.com>"


def test_smtp_hands_the_mail_to_the_server() -> None:
    with SmtpServer() as server:
        SmtpMailer("127.0.0.1", server.port, SENDER, starttls=False).send(
            "player@example.com", "Confirm your account", "Open https://x/#/confirm/abc\n"
        )
    (mail,) = server.messages
    assert mail["To"] == "player@example.com" and mail["From"] == SENDER
    assert mail["Subject"] == "Confirm your account" and mail["Message-ID"]
    assert mail.get_body().get_content().splitlines() == ["Open https://x/#/confirm/abc"]


def _self_signed(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_smtp_upgrades_to_tls_and_logs_in(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)
    trusted = ssl.create_default_context(cafile=str(cert))
    with SmtpServer(tls_context=served, require_starttls=True) as server:
        mailer = SmtpMailer(
            "127.0.0.1", server.port, SENDER, user="mailer", password="s3cret-password",
            tls_context=trusted,
        )  # fmt: skip
        mailer.send("player@example.com", "Hello", "Over TLS.\n")
        untrusted = SmtpMailer("127.0.0.1", server.port, SENDER)  # the system's trust store
        with pytest.raises(ssl.SSLError):
            untrusted.send("player@example.com", "Hello", "Refused.\n")
    assert [m.get_body().get_content().strip() for m in server.messages] == ["Over TLS."]
    assert server.logins[0] == ("mailer", "s3cret-password")


def test_smtp_failures_are_os_errors() -> None:
    with pytest.raises(OSError):  # the Mailer port's contract: the use cases catch OSError
        SmtpMailer("127.0.0.1", free_port(), SENDER, starttls=False).send("a@b.example", "s", "t")


def test_the_outbox_writes_one_whole_file_a_mail_in_order(tmp_path: Path) -> None:
    outbox = tmp_path / "outbox"
    mailer = OutboxMailer(outbox, sender=SENDER)
    for n in range(3):
        mailer.send("player@example.com", f"Mail {n}", f"Body {n}\n")
    mailer.send("other@example.com", "Other", "Not yours.\n")
    assert len(list(outbox.glob("*.eml"))) == 4 and not list(outbox.glob(".*"))
    mails = outbox_mails(outbox, "player@example.com")
    assert [m["Subject"] for m in mails] == ["Mail 0", "Mail 1", "Mail 2"]
    assert mails[0]["From"] == SENDER


def test_a_mail_the_full_disk_refuses_leaves_nothing_in_the_outbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sender logs the OSError and the player asks again; no part of the mail stays behind."""
    outbox = tmp_path / "outbox"
    mailer = OutboxMailer(outbox, sender=SENDER)
    mailer.send("player@example.com", "Kept", "Written before the disk filled.\n")

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(whole_files.os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        mailer.send("player@example.com", "Lost", "Not written.\n")
    assert [m["Subject"] for m in outbox_mails(outbox, "player@example.com")] == ["Kept"]
    assert len(list(outbox.iterdir())) == 1
