//! A real browser plays a whole game on the page by clicking: headless Chromium driven through
//! WebDriver (Debian's `chromium` and `chromium-driver`). Needs both installed, so it is ignored
//! by plain `cargo test`; `scripts/ci-browser.sh` installs them and runs it:
//!
//! ```sh
//! cargo test --test web_browser -- --ignored
//! ```
//!
//! Screenshots go to `target/tmp/web-browser-*.png` (`CARGO_TARGET_TMPDIR`).

mod web_support;

use serde_json::{json, Value};
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use web_support::http;

/// chromedriver on a free loopback port; killed when dropped.
struct Chromedriver {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Chromedriver {
    fn start() -> Chromedriver {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver is installed (apt-get install chromium chromium-driver)");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let driver = Chromedriver { child, addr };
        let started = Instant::now();
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver starts"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }
}

/// One browser session of the WebDriver protocol (W3C), over the tests' HTTP client.
struct Browser {
    driver: SocketAddr,
    session: String,
}

impl Browser {
    fn open(driver: SocketAddr, profile: &std::path::Path) -> Browser {
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.display()),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args}
        }}});
        let r = http(driver, "POST", "/session", Some(&caps.to_string()));
        assert_eq!(r.status, 200, "a browser session: {}", r.body);
        let session = r.json()["value"]["sessionId"].as_str().unwrap().to_string();
        Browser { driver, session }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let body = body.map(|b| b.to_string());
        let r = http(self.driver, method, &path, body.as_deref());
        assert_eq!(r.status, 200, "{method} {path}: {}", r.body);
        r.json()["value"].clone()
    }

    fn size(&self, width: u32, height: u32) {
        self.call(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    /// The page's JavaScript; `script` is a function body.
    fn run(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// The elements a CSS selector finds, as WebDriver element ids.
    fn find_all(&self, css: &str) -> Vec<String> {
        let v = self.call(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| {
                e.as_object()
                    .unwrap()
                    .values()
                    .next()
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    /// Clicks the first element `css` finds, as a person would (WebDriver's element click).
    fn click(&self, css: &str) {
        let found = self.find_all(css);
        let element = found
            .first()
            .unwrap_or_else(|| panic!("nothing to click at '{css}'"));
        self.call(
            "POST",
            &format!("/element/{element}/click"),
            Some(json!({})),
        );
    }

    fn screenshot(&self, path: &std::path::Path) {
        let b64 = self.call("GET", "/screenshot", None);
        std::fs::write(path, base64(b64.as_str().unwrap())).unwrap();
    }

    /// Waits until the page has no request under way and `condition` (a JS expression) holds.
    fn wait(&self, condition: &str, limit: Duration) {
        let started = Instant::now();
        let script = format!("return app.pending === 0 && !app.polling && !!({condition});");
        while self.run(&script) != json!(true) {
            assert!(started.elapsed() < limit, "waited too long for {condition}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(
            self.driver,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
    }
}

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text
        .bytes()
        .filter(|&c| c != b'=' && c != b'\n')
        .map(value)
        .collect();
    digits
        .chunks(4)
        .flat_map(|c| {
            let n = c.iter().fold(0u32, |n, &d| (n << 6) | d as u32) << (6 * (4 - c.len()));
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            bytes.into_iter().take(c.len() * 3 / 4)
        })
        .collect()
}

#[test]
#[ignore = "needs chromium and chromium-driver: scripts/ci-browser.sh"]
fn a_browser_plays_a_whole_game_against_beginner_by_clicking() {
    let (addr, _) = web_support::server("browser", 8);
    let target = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let profile = target.join("web-browser-profile");
    let _ = std::fs::remove_dir_all(&profile);
    let driver = Chromedriver::start();
    let browser = Browser::open(driver.addr, &profile);
    browser.size(1280, 900);
    browser.goto(&format!("http://{addr}/"));
    browser.wait("app.meta", Duration::from_secs(20));

    // The new-game dialog: Volcanic Jungle against beginner, blue, a fixed deal.
    browser.click("#btn-new");
    browser.click("#sel-terrain option[value='volcanic_jungle']");
    browser.click("#sel-level option[value='beginner']");
    browser.click("#form-new input[name='seed']");
    browser.call(
        "POST",
        &format!(
            "/element/{}/value",
            browser.find_all("#form-new input[name='seed']")[0]
        ),
        Some(json!({"text": "7"})),
    );
    browser.click("#btn-start");

    browser.wait(
        "app.game && app.game.view.to_move === 'human'",
        Duration::from_secs(60),
    );
    // The board is drawn, not typed: special bases have SVG icons, and no text on the board
    // is an emoji or a symbol a missing font would show as an empty box.
    let texts = browser
        .run("return [...document.querySelectorAll('#board text')].map(t => t.textContent);");
    let odd: Vec<&Value> = texts
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            !t.as_str()
                .unwrap()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        .collect();
    assert!(odd.is_empty(), "symbols on the board: {odd:?}");
    let icons = browser.run(
        "return [document.querySelectorAll('#board path.icon').length, \
         app.terrains.volcanic_jungle.nodes.filter(n => n.effect).length];",
    );
    assert!(
        icons[0] == icons[1] && icons[0].as_u64() > Some(0),
        "every special base has its icon: {icons}"
    );
    // Blue's HQ is at the bottom for the blue player; the toggle turns the board.
    let blue_hq_y =
        "return Number(document.querySelector('#board rect.hq-blue').getAttribute('y'));";
    assert!(browser.run(blue_hq_y).as_f64().unwrap() > 50.0);
    browser.click("#btn-flip");
    assert!(browser.run(blue_hq_y).as_f64().unwrap() < 50.0, "turned");
    browser.click("#btn-flip");
    assert!(browser.run(blue_hq_y).as_f64().unwrap() > 50.0);
    // The thinking bar has a width (it was 0 px beside a long text).
    let bar = browser.run(
        "const t = document.getElementById('thinking'); t.hidden = false; \
         document.getElementById('thinking-text').textContent = 'The computer is thinking… 0.4 s (so far: place Jumbo 13, place Roxy 24)'; \
         const w = document.getElementById('thinking-bar').getBoundingClientRect().width; t.hidden = true; return w;",
    );
    assert!(bar.as_f64().unwrap() >= 100.0, "thinking bar {bar}");
    // No undo reason before there is anything to undo.
    assert_eq!(
        browser.run("return document.getElementById('undo-reason').textContent;"),
        json!("")
    );

    let started = Instant::now();
    let mut clicks = 0;
    let mut shot_midgame = false;
    loop {
        browser.wait(
            "app.game && (app.game.view.to_move === 'human' || app.game.view.to_move === 'over')",
            Duration::from_secs(60),
        );
        if browser.run("return app.game.view.to_move;") == json!("over") {
            break;
        }
        let playable = browser.find_all("#side-human .tile.playable");
        if !shot_midgame
            && !playable.is_empty()
            && browser.run("return app.game.view.turn;").as_u64() >= Some(6)
        {
            // Ask for a hint, pick a tile (its slots light up), and take the picture.
            browser.click("#btn-hint");
            browser.wait("app.game.hint", Duration::from_secs(60));
            // A review of the human's own decisions so far, during the game (issue 31).
            browser.click("#btn-review-mine");
            browser.wait(
                "document.querySelectorAll('#review-mine-list li').length > 0 \
                 && !document.getElementById('btn-review-mine').disabled",
                Duration::from_secs(120),
            );
            let note =
                browser.run("return document.getElementById('review-mine-count').textContent;");
            assert!(
                note.as_str()
                    .unwrap()
                    .contains("of your decisions reviewed"),
                "{note}"
            );
            browser.click("#side-human .tile.playable");
            browser.screenshot(&target.join("web-browser-midgame.png"));
            shot_midgame = true;
            continue;
        }
        // A lit node (the selected tile's slots, or an effect's targets), else a playable rack
        // tile, else the first choice button (draw, decline, use, …).
        if !browser
            .find_all("g[data-node]:has(.legal-ring) > circle.hit")
            .is_empty()
        {
            browser.click("g[data-node]:has(.legal-ring) > circle.hit");
        } else if !browser.find_all("#side-human .tile.playable").is_empty() {
            browser.click("#side-human .tile.playable");
        } else {
            browser.click("#choices button");
        }
        clicks += 1;
        assert!(
            clicks < 600 && started.elapsed() < Duration::from_secs(300),
            "the game ends"
        );
    }
    assert!(
        shot_midgame,
        "the game lasted past turn 6 with a tile to place"
    );
    let status = browser.run("return document.getElementById('status').textContent;");
    assert!(
        status.as_str().unwrap().contains("win"),
        "the page says who won: {status}"
    );
    assert!(
        !status.as_str().unwrap().contains("(hq)"),
        "the end in words: {status}"
    );
    assert!(browser.run("return document.querySelector('#error').hidden;") == json!(true));
    // Every region taken is drawn in its taker's colour and listed under the taker's side.
    let taken = browser.run("return app.game.view.taken_regions;");
    let taken = taken.as_array().unwrap();
    assert!(!taken.is_empty(), "nobody took a region in this game");
    for r in taken {
        let (id, by) = (&r["id"], r["by"].as_str().unwrap());
        let drawn = browser.run(&format!(
            "return !!document.querySelector('#board g[data-region=\"{id}\"] circle.region.taken.{by}');"
        ));
        assert_eq!(drawn, json!(true), "region {id} taken by {by}");
    }
    let listed = browser.run("return document.getElementById('panel').textContent;");
    assert!(listed.as_str().unwrap().contains("regions taken: R"));
    assert_eq!(
        browser.run("return document.getElementById('undo-reason').textContent;"),
        json!(""),
        "no stale undo reason after the game"
    );
    browser.screenshot(&target.join("web-browser-final.png"));

    // Watch it again: the replay viewer with its slider.
    browser.click("#btn-watch");
    browser.wait("app.replay", Duration::from_secs(20));
    let steps = browser
        .run("return app.replay.steps.length;")
        .as_u64()
        .unwrap();
    assert!(steps > 10);
    // Chance steps are listed as "chance: Roxy", not "chance: chance Roxy".
    let chance_items = browser.run(
        "return [...document.querySelectorAll('#replay-steps li')]\
         .filter(li => li.textContent.startsWith('chance: ')).map(li => li.textContent);",
    );
    let chance_items = chance_items.as_array().unwrap();
    assert!(!chance_items.is_empty(), "the game had no chance step");
    assert!(
        chance_items
            .iter()
            .all(|t| !t.as_str().unwrap().starts_with("chance: chance")),
        "{chance_items:?}"
    );
    browser.click("#rp-last");
    assert_eq!(browser.run("return app.replayAt;").as_u64(), Some(steps));
    browser.click("#rp-prev");
    assert_eq!(
        browser.run("return app.replayAt;").as_u64(),
        Some(steps - 1)
    );
    // A finished game's racks are face up, from the first step on.
    browser.click("#rp-first");
    assert_eq!(
        browser.run("return document.querySelectorAll('#replay-sides .tile.back').length;"),
        json!(0)
    );
    assert!(
        browser
            .run(
                "return document.querySelectorAll('#replay-sides .tiles[data-side] .tile').length;"
            )
            .as_u64()
            > Some(4)
    );
    // The title and status stay in view when the page scrolls down the step list.
    browser.click("#rp-last");
    browser.run("window.scrollTo(0, document.body.scrollHeight);");
    let head = browser.run(
        "const r = document.getElementById('replay-status').getBoundingClientRect(); \
         return r.top >= 0 && r.bottom <= innerHeight && !!document.getElementById('replay-title').textContent;",
    );
    assert_eq!(head, json!(true), "the replay's status scrolled away");
    assert!(!browser
        .run("return document.getElementById('replay-status').textContent;")
        .as_str()
        .unwrap()
        .contains("chance chance"));
    browser.click("#rp-first");
    for _ in 0..8 {
        browser.click("#rp-next");
    }
    browser.screenshot(&target.join("web-browser-replay.png"));

    // The review after the game (a small budget keeps it quick): the graph with its axes, a
    // point clicked jumps to that position and the better decision is drawn on the board.
    browser.run(
        "const o = document.createElement('option'); o.value = '30'; o.textContent = 'test'; \
         document.getElementById('review-budget').appendChild(o); \
         document.getElementById('review-budget').value = '30'; showGame(app.game);",
    );
    browser.click("#btn-review");
    browser.wait(
        "app.review && app.review.data && app.review.data.complete",
        Duration::from_secs(120),
    );
    let labels = browser.run(
        "return [...document.querySelectorAll('#review-graph text')].map(t => t.textContent);",
    );
    let labels: Vec<&str> = labels
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"turn") && labels.contains(&"50%") && labels.contains(&"1"),
        "axes and turn labels: {labels:?}"
    );
    // The decision that lost the most, among those whose better decision is a placement.
    let step = browser.run(
        "const r = app.review.data; let best = null; \
         r.decisions.forEach((d, k) => { if (d.best !== d.played && r.shown[k].best.node != null \
           && (!best || d.error > best.error)) best = d; }); return best && best.step;",
    );
    let step = step
        .as_u64()
        .expect("a decision with a better one on a node");
    browser.click(&format!("#review-graph circle[data-step='{step}']"));
    assert_eq!(browser.run("return app.replayAt;").as_u64(), Some(step));
    assert!(!browser.find_all("#replay-board .best-ring").is_empty());
    let caption =
        browser.run("return document.querySelector('#replay-board .best-caption').textContent;");
    let here = browser.run("return document.getElementById('review-here').textContent;");
    assert!(
        caption.as_str().unwrap().starts_with("better: "),
        "{caption}"
    );
    assert!(here.as_str().unwrap().contains("better"), "{here}");
    // The review speaks of the step the viewer lists next (its step `step + 1`, the record's
    // index `step`), and names the decision the list shows there: the viewer's status names
    // the step before it (issue 31's off-by-one).
    let listed = browser.run(&format!(
        "return document.getElementById('replay-steps').children[{step}].textContent;"
    ));
    let played = browser.run(&format!(
        "return app.review.data.decisions.find((d) => d.step === {step}).played;"
    ));
    assert!(
        here.as_str()
            .unwrap()
            .starts_with(&format!("Next, step {}: ", step + 1)),
        "{here}"
    );
    assert!(
        listed.as_str().unwrap().ends_with(played.as_str().unwrap())
            && here.as_str().unwrap().contains(played.as_str().unwrap()),
        "listed {listed}, reviewed {played}, caption {here}"
    );
    let status = browser.run("return document.getElementById('replay-status').textContent;");
    assert!(
        status
            .as_str()
            .unwrap()
            .starts_with(&format!("step {step} of ")),
        "{status}"
    );
    assert!(browser.run("return document.querySelector('#error').hidden;") == json!(true));
    browser.run("window.scrollTo(0, 0);");
    browser.screenshot(&target.join("web-browser-review.png"));

    // A review at the standard budget, cancelled: it shows what it computed and says so.
    browser.run("document.getElementById('review-budget').value = '';");
    browser.click("#rp-review");
    browser.wait(
        "app.review.id && !document.getElementById('review-running').hidden",
        Duration::from_secs(20),
    );
    browser.click("#review-cancel");
    browser.wait("app.review.data", Duration::from_secs(120));
    assert_eq!(
        browser.run("return app.review.data.complete;"),
        json!(false)
    );
    let note = browser.run("return document.getElementById('review-note').textContent;");
    assert!(note.as_str().unwrap().starts_with("Cancelled: "), "{note}");
    browser.run("window.scrollTo(0, 0);");
    browser.screenshot(&target.join("web-browser-review-cancelled.png"));
    browser.click("#rp-first");
    for _ in 0..8 {
        browser.click("#rp-next");
    }

    // Play from here: a new game from step 8 against the chosen level.
    browser.click("#fh-level option[value='beginner']");
    browser.click("#btn-from-here");
    browser.wait(
        "app.game && !app.game.thinking && document.getElementById('replay').hidden",
        Duration::from_secs(60),
    );
    let log = browser
        .run("return app.game.view.log.length;")
        .as_u64()
        .unwrap();
    assert!(log >= 8, "the new game starts after step 8: {log} steps");

    // A phone-sized screen: the new-game dialog fits; playing red, red's HQ is at the bottom;
    // the rack is on the same screen as the board, its troop names at a readable size.
    browser.size(390, 844);
    browser.click("#btn-new");
    let fits = browser.run(
        "const d = document.getElementById('dlg-new').getBoundingClientRect(); \
         const s = document.getElementById('sel-level').getBoundingClientRect(); \
         return d.right <= innerWidth && s.right <= d.right;",
    );
    assert_eq!(fits, json!(true), "the new-game dialog overflows");
    browser.screenshot(&target.join("web-browser-phone-dialog.png"));
    browser.click("#form-new select[name='seat'] option[value='red']");
    browser.click("#form-new select[name='first'] option[value='human']");
    browser.click("#btn-start");
    browser.wait(
        "app.game && app.game.view.to_move === 'human'",
        Duration::from_secs(60),
    );
    browser.run("window.scrollTo(0, 0);");
    let red_hq_y = "return Number(document.querySelector('#board rect.hq-red').getAttribute('y'));";
    assert!(
        browser.run(red_hq_y).as_f64().unwrap() > 50.0,
        "red's HQ at the bottom"
    );
    let layout = browser.run(
        "const b = document.getElementById('board').getBoundingClientRect(); \
         const r = document.querySelector('#side-human .tiles').getBoundingClientRect(); \
         const n = getComputedStyle(document.querySelector('#side-human .tile .n')).fontSize; \
         return [b.top, b.bottom, r.top, r.bottom, innerHeight, parseFloat(n)];",
    );
    let l: Vec<f64> = layout
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        l[0] >= 0.0 && l[1] <= l[2] && l[3] <= l[4],
        "board and rack on one screen: {l:?}"
    );
    assert!(l[5] >= 10.0, "troop names of {} px", l[5]);
    browser.screenshot(&target.join("web-browser-phone.png"));
}
