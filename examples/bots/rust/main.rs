// A complete Ludus bot in Rust, with no crates: it reads the JSON lines by hand (docs/bots.md, "Languages").
// It asks for whole views, reads each message into a small JSON value, and answers {"seq", "choice"}.
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

#[derive(Debug, Clone)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(map) => map.get(key).unwrap_or(&Json::Null),
            _ => &Json::Null,
        }
    }
    fn len(&self) -> usize {
        match self {
            Json::Array(items) => items.len(),
            _ => 0,
        }
    }
    fn int(&self) -> i64 {
        match self {
            Json::Number(n) => *n as i64,
            _ => 0,
        }
    }
    fn text(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn skip(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn value(&mut self) -> Json {
        self.skip();
        match self.s[self.i] {
            b'{' => {
                self.i += 1;
                let mut map = BTreeMap::new();
                loop {
                    self.skip();
                    if self.s[self.i] == b'}' {
                        self.i += 1;
                        return Json::Object(map);
                    }
                    let key = self.string();
                    self.skip();
                    self.i += 1; // ':'
                    let value = self.value();
                    map.insert(key, value);
                    self.skip();
                    if self.s[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.skip();
                    if self.s[self.i] == b']' {
                        self.i += 1;
                        return Json::Array(items);
                    }
                    items.push(self.value());
                    self.skip();
                    if self.s[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'"' => Json::Str(self.string()),
            b't' => {
                self.i += 4;
                Json::Bool(true)
            }
            b'f' => {
                self.i += 5;
                Json::Bool(false)
            }
            b'n' => {
                self.i += 4;
                Json::Null
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("0");
                Json::Number(text.parse().unwrap_or(0.0))
            }
        }
    }
    fn string(&mut self) -> String {
        self.skip();
        self.i += 1; // the opening quote
        let mut out = Vec::new();
        while self.s[self.i] != b'"' {
            if self.s[self.i] == b'\\' {
                self.i += 1;
                match self.s[self.i] {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'u' => {
                        let hex = std::str::from_utf8(&self.s[self.i + 1..self.i + 5]).unwrap_or("3f");
                        let c = char::from_u32(u32::from_str_radix(hex, 16).unwrap_or(63)).unwrap_or('?');
                        out.extend_from_slice(c.to_string().as_bytes());
                        self.i += 4;
                    }
                    other => out.push(other),
                }
            } else {
                out.push(self.s[self.i]);
            }
            self.i += 1;
        }
        self.i += 1;
        String::from_utf8_lossy(&out).into_owned()
    }
}

fn parse(line: &str) -> Json {
    Parser { s: line.as_bytes(), i: 0 }.value()
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut state: u64 = 0;
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(_) => break,
        };
        let message = parse(&line);
        match message.get("type").text() {
            "hello" => {
                state = 7 + message.get("seat").int() as u64;
                if message.get("protocol").int() >= 2 {
                    writeln!(out, "{{\"type\":\"hello\",\"views\":\"full\"}}").unwrap();
                    out.flush().unwrap();
                }
            }
            "decide" => {
                // Any index of decision.options is legal; a real bot weighs them with message.get("view").
                state = (state * 1103515245 + 12345) % 2147483648;
                let options = message.get("decision").get("options").len().max(1) as u64;
                writeln!(out, "{{\"seq\":{},\"choice\":{}}}", message.get("seq").int(), state % options).unwrap();
                out.flush().unwrap();
            }
            "result" => break,
            _ => {}
        }
    }
}
