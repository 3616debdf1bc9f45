"""Makes the README's screenshots again, from the running product (run it after a change to the install page):

    swift build -c release --product tipjar      # or TIPJAR_BIN=$(swift build --show-bin-path)/tipjar
    sh Tests/Browser/install.sh                  # Chromium, chromedriver, the emoji font, Selenium
    python3 Tests/Browser/readme_screenshots.py

It starts `tipjar serve` on a temporary database (as the browser tests do), creates the install the README shows
(pt-BR on the BRA storefront, "iPhone da Ana", one tip bought), waits for its tiles and writes
Public/screenshots/install-page.png (1280 × 800) and Public/screenshots/install-page-390.png (390 × 844, a phone).
"""

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from test_dashboard import ROOT, chromium, running_server, wait_for_state  # noqa: E402

SHOTS = ROOT / "Public" / "screenshots"
COFFEE = "com.example.tipjar.tip.coffee"


def main():
    with running_server() as server:
        server.store(skipPurchaseSheet=True)
        install_id = server.create_install(locale="pt-BR", storefront="BRA", label="iPhone da Ana", accountID="ana")
        server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": COFFEE})
        driver = chromium()
        driver.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": True})  # as on a phone or a Mac
        try:
            for name, width, height, mobile in (("install-page.png", 1280, 800, False),
                                                ("install-page-390.png", 390, 844, True)):
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
                driver.get(f"{server.base}/installs/{install_id}")
                wait_for_state(driver, "ready")
                # Wait for the emoji font and every image, so the picture is the one a person sees.
                driver.execute_async_script("var done = arguments[0]; document.fonts.ready.then(function () { done(); });")
                driver.save_screenshot(str(SHOTS / name))
                print(f"wrote {(SHOTS / name).relative_to(ROOT)}")
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
