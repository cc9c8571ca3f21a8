//! Multi-touch input: decodes `sendevent` streams written to the touchscreen node
//! (Linux multi-touch protocol B: `ABS_MT_SLOT`, `ABS_MT_TRACKING_ID` with -1 for up,
//! `ABS_MT_POSITION_X/Y`, `BTN_TOUCH`, `SYN_REPORT`) and recognises the finished gesture.
//!
//! Agents drive pinches and rotations this way because `input` has no multi-touch verb, so
//! the device has to understand the raw stream to make such a gesture have an effect.
use std::fmt;
use std::time::{Duration, Instant};

pub const EV_SYN: u16 = 0x00;
pub const EV_KEY: u16 = 0x01;
pub const EV_ABS: u16 = 0x03;
pub const SYN_REPORT: u16 = 0x00;
pub const BTN_TOUCH: u16 = 0x14a;
pub const ABS_MT_SLOT: u16 = 0x2f;
pub const ABS_MT_POSITION_X: u16 = 0x35;
pub const ABS_MT_POSITION_Y: u16 = 0x36;
pub const ABS_MT_TRACKING_ID: u16 = 0x39;

/// The node the device announces in `getevent -pl`.
pub const TOUCH_DEVICE: &str = "/dev/input/event2";
pub const SLOTS: usize = 10;

/// Movement below this (pixels) is still a tap: Android's touch slop is 8dp, ~21px at 420dpi.
const SLOP: f32 = 24.0;
const LONG_PRESS: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, PartialEq)]
pub enum Gesture {
    Tap {
        x: i32,
        y: i32,
    },
    LongPress {
        x: i32,
        y: i32,
    },
    Swipe {
        from: (i32, i32),
        to: (i32, i32),
        direction: &'static str,
    },
    /// Two fingers moving apart (`out`) or together (`in`); spreads in pixels.
    Pinch {
        start_spread: i32,
        end_spread: i32,
        center: (i32, i32),
    },
    TwoFingerSwipe {
        dx: i32,
        dy: i32,
        direction: &'static str,
    },
    /// Rotation of the line between two fingers, degrees, counter-clockwise positive on screen.
    Rotation {
        degrees: i32,
    },
    MultiTap {
        fingers: usize,
    },
}

impl Gesture {
    pub fn pinch_direction(&self) -> Option<&'static str> {
        match self {
            Gesture::Pinch {
                start_spread,
                end_spread,
                ..
            } => Some(if end_spread < start_spread {
                "in"
            } else {
                "out"
            }),
            _ => None,
        }
    }
}

impl fmt::Display for Gesture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gesture::Tap { x, y } => write!(f, "tap {x},{y}"),
            Gesture::LongPress { x, y } => write!(f, "long_press {x},{y}"),
            Gesture::Swipe {
                from,
                to,
                direction,
            } => write!(
                f,
                "swipe {direction} {},{}->{},{}",
                from.0, from.1, to.0, to.1
            ),
            Gesture::Pinch {
                start_spread,
                end_spread,
                ..
            } => write!(f, "pinch spread {start_spread}->{end_spread}"),
            Gesture::TwoFingerSwipe { dx, dy, direction } => {
                write!(f, "two_finger_swipe {direction} {dx},{dy}")
            }
            Gesture::Rotation { degrees } => write!(f, "rotation {degrees}"),
            Gesture::MultiTap { fingers } => write!(f, "multi_tap {fingers}"),
        }
    }
}

/// Direction a finger moved, by the larger axis.
pub fn direction(dx: f32, dy: f32) -> &'static str {
    if dx.abs() >= dy.abs() {
        if dx >= 0.0 { "right" } else { "left" }
    } else if dy >= 0.0 {
        "down"
    } else {
        "up"
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    track: Option<usize>,
    x: Option<i32>,
    y: Option<i32>,
}

#[derive(Debug, Clone)]
struct Track {
    points: Vec<(f32, f32)>,
    start: Instant,
    end: Instant,
}

/// Decoder state; raw axis ranges are those announced by `getevent -pl`.
#[derive(Debug, Clone)]
pub struct TouchDecoder {
    x_max: i32,
    y_max: i32,
    width: u32,
    height: u32,
    slot: usize,
    slots: [Slot; SLOTS],
    tracks: Vec<Track>,
    /// Display rotation 0..=3: the panel stays upright, points are reported on the turned
    /// screen (see `device::display`).
    pub rotation: u8,
}

impl TouchDecoder {
    pub fn new(x_max: i32, y_max: i32, width: u32, height: u32) -> TouchDecoder {
        TouchDecoder {
            x_max: x_max.max(1),
            y_max: y_max.max(1),
            width,
            height,
            slot: 0,
            slots: [Slot::default(); SLOTS],
            tracks: Vec::new(),
            rotation: 0,
        }
    }

    fn scale(&self, x: i32, y: i32) -> (f32, f32) {
        let sx = x as f32 * (self.width.saturating_sub(1)) as f32 / self.x_max as f32;
        let sy = y as f32 * (self.height.saturating_sub(1)) as f32 / self.y_max as f32;
        crate::device::display::Display {
            natural: (self.width, self.height),
            rotation: self.rotation,
        }
        .panel_to_screen((sx, sy))
    }

    /// Feeds one event; returns the gesture when the last finger lifts.
    pub fn feed(&mut self, ty: u16, code: u16, value: i32) -> Option<Gesture> {
        let now = Instant::now();
        match (ty, code) {
            (EV_ABS, ABS_MT_SLOT) => {
                self.slot = usize::try_from(value).ok().filter(|s| *s < SLOTS)?;
            }
            (EV_ABS, ABS_MT_TRACKING_ID) => {
                let slot = self.slots.get_mut(self.slot)?;
                if value < 0 {
                    slot.track = None;
                } else {
                    self.tracks.push(Track {
                        points: Vec::new(),
                        start: now,
                        end: now,
                    });
                    slot.track = Some(self.tracks.len() - 1);
                }
            }
            (EV_ABS, ABS_MT_POSITION_X) => {
                self.slots.get_mut(self.slot)?.x = Some(value);
            }
            (EV_ABS, ABS_MT_POSITION_Y) => {
                self.slots.get_mut(self.slot)?.y = Some(value);
            }
            (EV_SYN, SYN_REPORT) => return self.report(now),
            _ => {}
        }
        None
    }

    fn report(&mut self, now: Instant) -> Option<Gesture> {
        let mut updates = Vec::new();
        for s in &self.slots {
            if let (Some(t), Some(x), Some(y)) = (s.track, s.x, s.y) {
                updates.push((t, self.scale(x, y)));
            }
        }
        for (t, p) in updates {
            if let Some(track) = self.tracks.get_mut(t) {
                if track.points.last() != Some(&p) {
                    track.points.push(p);
                }
                track.end = now;
            }
        }
        let any_down = self.slots.iter().any(|s| s.track.is_some());
        if any_down || self.tracks.is_empty() {
            return None;
        }
        let tracks: Vec<Track> = std::mem::take(&mut self.tracks)
            .into_iter()
            .filter(|t| !t.points.is_empty())
            .collect();
        classify(&tracks)
    }
}

fn classify(tracks: &[Track]) -> Option<Gesture> {
    let first = |t: &Track| t.points.first().copied().unwrap_or_default();
    let last = |t: &Track| t.points.last().copied().unwrap_or_default();
    let r = |v: f32| v.round() as i32;
    match tracks {
        [] => None,
        [t] => {
            let (a, b) = (first(t), last(t));
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            if dx.hypot(dy) < SLOP {
                if t.end.duration_since(t.start) >= LONG_PRESS {
                    Some(Gesture::LongPress {
                        x: r(a.0),
                        y: r(a.1),
                    })
                } else {
                    Some(Gesture::Tap {
                        x: r(a.0),
                        y: r(a.1),
                    })
                }
            } else {
                Some(Gesture::Swipe {
                    from: (r(a.0), r(a.1)),
                    to: (r(b.0), r(b.1)),
                    direction: direction(dx, dy),
                })
            }
        }
        [t1, t2, ..] if tracks.len() == 2 => {
            let (a1, b1, a2, b2) = (first(t1), last(t1), first(t2), last(t2));
            let spread = |p: (f32, f32), q: (f32, f32)| (q.0 - p.0).hypot(q.1 - p.1);
            let (s0, s1) = (spread(a1, a2), spread(b1, b2));
            let c0 = ((a1.0 + a2.0) / 2.0, (a1.1 + a2.1) / 2.0);
            let c1 = ((b1.0 + b2.0) / 2.0, (b1.1 + b2.1) / 2.0);
            let (cdx, cdy) = (c1.0 - c0.0, c1.1 - c0.1);
            let ang0 = (a2.1 - a1.1).atan2(a2.0 - a1.0);
            let ang1 = (b2.1 - b1.1).atan2(b2.0 - b1.0);
            let mut dang = (ang1 - ang0).to_degrees();
            while dang > 180.0 {
                dang -= 360.0;
            }
            while dang < -180.0 {
                dang += 360.0;
            }
            let dspread = (s1 - s0).abs();
            let moved = cdx.hypot(cdy);
            // Arc length each finger travels for the rotation, to compare with the others.
            let arc = dang.to_radians().abs() * s0.max(s1) / 2.0;
            if dspread >= SLOP * 2.0 && dspread >= moved && dspread >= arc {
                Some(Gesture::Pinch {
                    start_spread: r(s0),
                    end_spread: r(s1),
                    center: (r(c1.0), r(c1.1)),
                })
            } else if dang.abs() >= 15.0 && arc >= moved {
                // Screen y grows downwards; report counter-clockwise as positive.
                Some(Gesture::Rotation { degrees: r(-dang) })
            } else if moved >= SLOP * 2.0 {
                Some(Gesture::TwoFingerSwipe {
                    dx: r(cdx),
                    dy: r(cdy),
                    direction: direction(cdx, cdy),
                })
            } else {
                Some(Gesture::MultiTap { fingers: 2 })
            }
        }
        _ => Some(Gesture::MultiTap {
            fingers: tracks.len(),
        }),
    }
}

/// Parses a `sendevent` number: decimal, `0x` hex, or negative; 32-bit values wrap, so
/// `4294967295` and `0xffffffff` both mean -1 as the kernel sees them.
pub fn parse_value(s: &str) -> Option<i32> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i64>().ok()?
    };
    let v = if neg { -v } else { v };
    if !(i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v) {
        return None;
    }
    Some(v as u32 as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finger(d: &mut TouchDecoder, slot: i32, id: i32, x: i32, y: i32) {
        d.feed(EV_ABS, ABS_MT_SLOT, slot);
        d.feed(EV_ABS, ABS_MT_TRACKING_ID, id);
        d.feed(EV_ABS, ABS_MT_POSITION_X, x);
        d.feed(EV_ABS, ABS_MT_POSITION_Y, y);
    }

    fn mv(d: &mut TouchDecoder, slot: i32, x: i32, y: i32) {
        d.feed(EV_ABS, ABS_MT_SLOT, slot);
        d.feed(EV_ABS, ABS_MT_POSITION_X, x);
        d.feed(EV_ABS, ABS_MT_POSITION_Y, y);
    }

    fn up_all(d: &mut TouchDecoder) -> Option<Gesture> {
        d.feed(EV_ABS, ABS_MT_SLOT, 0);
        d.feed(EV_ABS, ABS_MT_TRACKING_ID, -1);
        d.feed(EV_ABS, ABS_MT_SLOT, 1);
        d.feed(EV_ABS, ABS_MT_TRACKING_ID, -1);
        d.feed(EV_SYN, SYN_REPORT, 0)
    }

    #[test]
    fn pinch_in_reports_spreads() {
        let mut d = TouchDecoder::new(1079, 2399, 1080, 2400);
        finger(&mut d, 0, 1, 340, 1200);
        finger(&mut d, 1, 2, 740, 1200);
        assert_eq!(d.feed(EV_SYN, SYN_REPORT, 0), None);
        mv(&mut d, 0, 490, 1200);
        mv(&mut d, 1, 590, 1200);
        d.feed(EV_SYN, SYN_REPORT, 0);
        let g = up_all(&mut d).unwrap();
        assert_eq!(g.to_string(), "pinch spread 400->100");
        assert_eq!(g.pinch_direction(), Some("in"));
    }

    #[test]
    fn rotation_and_scaling() {
        // Announced range 0..4095 maps onto 1080x2400 pixels.
        let mut d = TouchDecoder::new(4095, 4095, 1080, 2400);
        finger(&mut d, 0, 5, 0, 0);
        d.feed(EV_SYN, SYN_REPORT, 0);
        d.feed(EV_ABS, ABS_MT_SLOT, 0);
        d.feed(EV_ABS, ABS_MT_TRACKING_ID, -1);
        let g = d.feed(EV_SYN, SYN_REPORT, 0).unwrap();
        assert_eq!(g, Gesture::Tap { x: 0, y: 0 });

        let mut d = TouchDecoder::new(1079, 2399, 1080, 2400);
        finger(&mut d, 0, 1, 340, 1200);
        finger(&mut d, 1, 2, 740, 1200);
        d.feed(EV_SYN, SYN_REPORT, 0);
        mv(&mut d, 0, 540, 1000);
        mv(&mut d, 1, 540, 1400);
        d.feed(EV_SYN, SYN_REPORT, 0);
        match up_all(&mut d).unwrap() {
            Gesture::Rotation { degrees } => assert_eq!(degrees.abs(), 90),
            g => panic!("not a rotation: {g}"),
        }
    }

    #[test]
    fn sendevent_numbers() {
        assert_eq!(parse_value("0xffffffff"), Some(-1));
        assert_eq!(parse_value("4294967295"), Some(-1));
        assert_eq!(parse_value("-1"), Some(-1));
        assert_eq!(parse_value("0x35"), Some(53));
        assert_eq!(parse_value("x"), None);
    }
}
