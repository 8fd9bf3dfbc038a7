"""The app's own face on a phone, from the real server (``chickenfoot app --web``): the
installable web app's manifest, its icons at every size the manifest lists, the favicon and the
page's title and description are the project's (``companion/app/web/assets/``), not Flet's."""

from __future__ import annotations

import io
import json
from pathlib import Path

from app_e2e_helpers import Server, http_request, send_code
from PIL import Image

from chickenfoot.app.web import face

ASSETS = Path(face.__file__).parent / "assets"


def _flet_file(name: str) -> bytes:
    import flet_web

    return (Path(flet_web.__file__).parent / "web" / name).read_bytes()


def test_the_manifest_icons_and_favicon_served_are_the_project_s(table: Server) -> None:
    status, headers, body = http_request(table.port, "/manifest.json")  # no table code needed
    assert status == 200 and headers["content-type"] == "application/manifest+json"
    manifest = json.loads(body)
    assert manifest["name"] == "Chicken Foot companion" and manifest["short_name"] == "Chicken Foot"
    assert "Flet" not in body.decode() and "cross-platform" not in body.decode()
    assert manifest["theme_color"] == face.THEME_COLOUR == "#2E7D32"
    assert {i["sizes"] for i in manifest["icons"]} == {"192x192", "512x512"}
    listed = [i["src"] for i in manifest["icons"]] + ["favicon.png", "icons/apple-touch-icon-192.png",
                                                       "icons/loading-animation.png"]
    for src in listed:
        status, headers, png = http_request(table.port, "/" + src)
        assert status == 200 and headers["content-type"] == "image/png", src
        assert png != _flet_file(src), f"{src} is Flet's"
        size = Image.open(io.BytesIO(png)).size
        declared = next((i["sizes"] for i in manifest["icons"] if i["src"] == src), None)
        if declared:
            assert f"{size[0]}x{size[1]}" == declared, src
    assert Image.open(io.BytesIO(http_request(table.port, "/favicon.png")[2])).size == (32, 32)
    # the page itself (once joined) names the app and links these
    status, headers, _ = send_code(table.port, table.code)
    cookie = headers["set-cookie"].split(";")[0]
    status, _, page = http_request(table.port, "/", headers={"Cookie": cookie})
    assert status == 200
    assert b"<title>Chicken Foot companion</title>" in page and b'href="manifest.json"' in page
    assert b'content="Scores, hands read from photos' in page and b"Flet application" not in page
    # the join page too carries the favicon and the colour
    join = http_request(table.port, "/")[2]
    assert b'href="/favicon.png"' in join and face.THEME_COLOUR.encode() in join


def test_only_the_face_s_own_addresses_are_answered_from_its_files() -> None:
    for path in ("/manifest.json", "/favicon.png", "/icons/icon-512.png"):
        data, _ = face.file(path)  # type: ignore[misc]
        assert data == (ASSETS / face.FILES[path][0]).read_bytes()
    for path in ("/icons/../manifest.json", "/assets/manifest.json", "/icons/icon-512.png/",
                 "//favicon.png", "/icons/%2e%2e/favicon.png", "/face.py", "/icons/"):
        assert face.file(path) is None, path


def test_every_icon_is_drawn_at_the_size_its_name_says() -> None:
    for name in sorted(p.relative_to(ASSETS).as_posix() for p in ASSETS.rglob("*.png")):
        size = Image.open(ASSETS / name).size
        expected = 32 if name == "favicon.png" else int(name.rsplit("-", 1)[1].split(".")[0])
        assert size == (expected, expected), name
