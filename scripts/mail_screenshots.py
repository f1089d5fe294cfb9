"""Screenshots of every player e-mail, desktop and phone, for a reviewer to look at.

    python scripts/mail_screenshots.py                    # into docs/mail/screenshots/
    python scripts/mail_screenshots.py --lang de          # a German store's
    python scripts/mail_screenshots.py --out /tmp/mail    # or a folder of your choice
    make screenshots                                      # the panel's, the shop's, then these

Each message is composed exactly as the mail consumer composes it (`webstore.mail.compose`,
the house templates; the sign-in link's `webstore.mail.sign_in`) from a made-up event of the
right shape, written as `{kind}.html` and `{kind}.txt`, and shown in Debian's headless Chromium
at desktop (1280x800) and phone (390x844) width, whole page:

    {kind}-desktop.png, {kind}-phone.png

The folder is git-ignored; docs/mail.md shows a few (docs/mail/tour/, copied after a look).
Nothing leaves the machine: the messages' images and links are not fetched.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH  # noqa: E402
from tests.unit.test_mail_language import DOCUMENTS, MANAGE, store, subject_of  # noqa: E402
from webstore.mail.compose import Composed, compose  # noqa: E402
from webstore.mail.messages import MessageKind  # noqa: E402
from webstore.mail.sign_in import compose_sign_in  # noqa: E402

DEFAULT_FOLDER = ROOT / "docs" / "mail" / "screenshots"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def messages(lang: str) -> dict[str, Composed]:
    """Every message a player can get, in a store speaking `lang`."""
    profile = store(lang)
    found = {
        kind.value: compose(kind, profile, subject_of(kind), manage_url=MANAGE, documents=DOCUMENTS)
        for kind in MessageKind
        if kind is not MessageKind.SIGN_IN
    }
    found[MessageKind.SIGN_IN.value] = compose_sign_in(profile, "https://kraft.example/in/1.sample")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--lang", default="en", help="the store's language (en, de, fr, es, pt-BR)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    composed = messages(args.lang)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        try:
            for name, message in composed.items():
                (args.out / f"{name}.html").write_text(message.html)
                (args.out / f"{name}.txt").write_text(f"Subject: {message.subject}\n\n{message.text}")
                for size, (width, height) in SIZES.items():
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.route("**/*", lambda route: route.abort())  # nothing fetched
                    page.set_content(message.html)
                    page.screenshot(path=str(args.out / f"{name}-{size}.png"), full_page=True)
                    page.close()
                print(f"{name}: {message.subject}")
        finally:
            browser.close()
    print(f"{len(composed)} messages at {len(SIZES)} sizes in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
