//! What the web tests share: a small HTTP/1.1 client over a loopback TCP stream (enough for the
//! server's JSON API and for a WebDriver), and starting a server in-process.

#![allow(dead_code)] // each test file uses a part

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

/// A server on a free loopback port with its own saves folder under target/.
pub fn server(name: &str, max_games: usize) -> (SocketAddr, PathBuf) {
    let saves = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("web-saves-{name}"));
    let _ = std::fs::remove_dir_all(&saves);
    // The shown deals too are the test's own, not the player's data folder.
    let data = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("web-data-{name}"));
    let _ = std::fs::remove_dir_all(&data);
    let config = toybattle::web::Config {
        saves: saves.clone(),
        data,
        max_games,
        ..toybattle::web::Config::default()
    };
    let running = toybattle::web::spawn("127.0.0.1:0", config).expect("server starts");
    (running.addr, saves)
}

/// One response: status, head and body text.
pub struct Reply {
    pub status: u16,
    /// The status line and headers, lower case.
    pub head: String,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// Sends one request (`Connection: close`) and reads the whole answer.
pub fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Reply {
    request(addr, method, path, &[], body, Duration::from_secs(120)).expect("an answer")
}

/// Sends one request (`Connection: close`) with `headers` added; a header named there replaces
/// the usual one (`Host` the server's address, `Content-Type: application/json`), and an empty
/// value leaves it out. The whole answer, or the error of a read that waited `wait` for more.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
    wait: Duration,
) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(wait))?;
    let body = body.unwrap_or("");
    let host = addr.to_string();
    let defaults = [
        ("Host", host.as_str()),
        ("Content-Type", "application/json"),
    ];
    let mut text = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in defaults
        .iter()
        .filter(|(n, _)| !headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n)))
    {
        text += &format!("{name}: {value}\r\n");
    }
    for (name, value) in headers.iter().filter(|(_, v)| !v.is_empty()) {
        text += &format!("{name}: {value}\r\n");
    }
    text += &format!("Content-Length: {}\r\n\r\n{body}", body.len());
    stream.write_all(text.as_bytes())?;
    read_reply(&mut stream)
}

/// Reads one whole answer from `stream`: by Content-Length, by the last chunk, or to the close
/// (some servers keep the connection open despite `Connection: close`).
pub fn read_reply(stream: &mut TcpStream) -> std::io::Result<Reply> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        if let Some(reply) = whole(&raw) {
            return Ok(reply);
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return whole(&raw).ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the connection closed before a whole HTTP response",
                )
            });
        }
        raw.extend_from_slice(&buf[..n]);
    }
}

/// The response in `raw` if it is complete.
fn whole(raw: &[u8]) -> Option<Reply> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let rest = &raw[split + 4..];
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let bytes = if head.contains("transfer-encoding: chunked") {
        dechunk(rest)?
    } else {
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))?
            .trim()
            .parse()
            .ok()?;
        if rest.len() < length {
            return None;
        }
        rest[..length].to_vec()
    };
    Some(Reply {
        status,
        head,
        body: String::from_utf8(bytes).expect("UTF-8 body"),
    })
}

/// The body of a chunked response, once its last chunk has arrived.
fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size =
            usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).ok()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(rest.get(line_end + 2..line_end + 2 + size)?);
        rest = rest.get(line_end + 2 + size + 2..)?;
    }
}

pub fn post(addr: SocketAddr, path: &str, body: &str) -> Reply {
    http(addr, "POST", path, Some(body))
}

pub fn get(addr: SocketAddr, path: &str) -> Reply {
    http(addr, "GET", path, None)
}
