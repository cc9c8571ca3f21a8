//! Fragments from `dumpsys activity top`: each activity's FragmentManager dump, nested
//! through child FragmentManagers, reduced to a tree and to the current destinations.
//!
//! No fixture has this output. The parser follows the formats the sources print:
//! - `ActivityManagerService.dumpActivity`: `TASK <affinity> id=N userId=U`, then
//!   `  ACTIVITY <pkg/.Cls> <hash> pid=P`, then the app's own dump four spaces in.
//! - androidx `FragmentStore.dump`: `Active Fragments:` followed by each fragment's
//!   `toString()` at the *same* indentation (`Name{hash} (who id=0x.. tag=..)`) and its
//!   `Fragment.dump` four spaces deeper (`mState=7 mWho=...`, `mHidden=...`, and last
//!   `Child FragmentManager{hash in Parent{hash}}}:` whose dump is two spaces deeper);
//!   then `Added Fragments:` with `  #i: Name{hash} (...)`.
//! - platform `android.app.FragmentManager` and the old support library:
//!   `Active Fragments in <hash>:` with `  #i: Name{hash #i id=0x.. tag}` entries.
//!
//! androidx.lifecycle's `ReportFragment` (added to every activity to dispatch lifecycle
//! events) is not something an agent navigates to, so it is left out.
use serde::Serialize;

use super::super::{Component, indent, kv};

/// The fragments of one activity in `dumpsys activity top`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopFragments {
    pub activity: Option<Component>,
    pub pid: Option<u32>,
    /// `mResumed` from the activity's own state dump.
    pub resumed: Option<bool>,
    /// Top-level fragments with their children (child FragmentManagers), in dump order.
    pub fragments: Vec<FragmentNode>,
    /// The innermost added, non-hidden fragments: for Navigation, the current destinations.
    pub current: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FragmentNode {
    /// Simple class name, as `toString()` prints it.
    pub name: String,
    pub id: Option<String>,
    pub tag: Option<String>,
    /// `mWho`, the fragment's unique key within its manager.
    pub who: Option<String>,
    /// Raw `mState` number; the scale changed between fragment library versions
    /// (androidx 1.3+: 7 = RESUMED, 5 = STARTED; older: 4 = RESUMED), so it is not named.
    pub state: Option<i32>,
    /// In its manager's added list (on screen or hidden); false = only active (back stack).
    pub added: bool,
    pub hidden: Option<bool>,
    pub children: Vec<FragmentNode>,
}

struct Rec {
    hash: String,
    parent: Option<String>,
    node: FragmentNode,
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    None,
    Active,
    Added,
}

struct Ctx {
    /// Indentation of the `Child FragmentManager` line; `None` for the activity's own.
    indent: Option<usize>,
    parent: Option<String>,
    mode: Mode,
    /// The fragment whose dump lines follow: (header indentation, hash).
    last: Option<(usize, String)>,
}

struct Header {
    name: String,
    hash: String,
    id: Option<String>,
    tag: Option<String>,
    who: Option<String>,
}

fn header(t: &str) -> Option<Header> {
    let t = match t.strip_prefix('#').and_then(|r| r.split_once(": ")) {
        Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => t,
    };
    let (name, rest) = t.split_once('{')?;
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    {
        return None;
    }
    let (inside, after) = rest.split_once('}')?;
    let mut words = inside.split(' ');
    let hash = words
        .next()
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))?;
    let mut h = Header {
        name: name.into(),
        hash: hash.into(),
        id: None,
        tag: None,
        who: None,
    };
    // Legacy: `{hash #0 id=0x7f01 tag}`; androidx: `{hash} (who id=0x7f01 tag=tag)`.
    let extra: Vec<&str> = if after.is_empty() {
        words.collect()
    } else {
        let inner = after.strip_prefix(" (")?.strip_suffix(')')?;
        let mut w: Vec<&str> = inner.split(' ').collect();
        if !w.is_empty() && !w[0].contains('=') {
            h.who = Some(w.remove(0).to_string());
        }
        w
    };
    for w in extra
        .into_iter()
        .filter(|w| !w.is_empty() && !w.starts_with('#'))
    {
        if let Some(id) = w.strip_prefix("id=") {
            h.id = Some(id.to_string());
        } else {
            h.tag = Some(w.strip_prefix("tag=").unwrap_or(w).to_string());
        }
    }
    Some(h)
}

fn fragments_of(lines: &[&str]) -> (Option<bool>, Vec<Rec>) {
    let mut resumed = None;
    let mut recs: Vec<Rec> = Vec::new();
    let mut stack = vec![Ctx {
        indent: None,
        parent: None,
        mode: Mode::None,
        last: None,
    }];
    let mut skip_below: Option<usize> = None;
    for line in lines {
        let ind = indent(line);
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        match skip_below {
            Some(s) if ind > s => continue,
            _ => skip_below = None,
        }
        if t == "View Hierarchy:" || t == "ViewRoot:" {
            skip_below = Some(ind);
            continue;
        }
        if resumed.is_none() && (t.starts_with("mResumed=") || t.starts_with("mCreated=")) {
            resumed = kv(t, "mResumed").and_then(|v| v.parse().ok());
        }
        while stack.len() > 1
            && stack
                .last()
                .and_then(|c| c.indent)
                .is_some_and(|i| ind <= i)
        {
            stack.pop();
        }
        let Some(ctx) = stack.last_mut() else { break };
        if let Some(rest) = t.strip_prefix("Child FragmentManager{") {
            let parent = rest
                .split_once(" in ")
                .and_then(|(_, p)| p.find('}').map(|end| &p[..=end]))
                .and_then(header)
                .map(|h| h.hash)
                .or_else(|| ctx.last.as_ref().map(|(_, h)| h.clone()));
            stack.push(Ctx {
                indent: Some(ind),
                parent,
                mode: Mode::None,
                last: None,
            });
            continue;
        }
        if t.starts_with("Active Fragments") {
            ctx.mode = Mode::Active;
            continue;
        }
        if t == "Added Fragments:" {
            ctx.mode = Mode::Added;
            continue;
        }
        if t.starts_with("Back Stack")
            || t.starts_with("FragmentManager misc state")
            || t.starts_with("Pending Actions")
            || t.starts_with("Fragments Created Menus")
        {
            ctx.mode = Mode::None;
            continue;
        }
        if ctx.mode != Mode::None
            && let Some(h) = header(t)
        {
            let added = ctx.mode == Mode::Added;
            let pos = recs.iter().position(|r| r.hash == h.hash);
            let rec = match pos {
                Some(p) => &mut recs[p],
                None => {
                    recs.push(Rec {
                        hash: h.hash.clone(),
                        parent: ctx.parent.clone(),
                        node: FragmentNode {
                            name: h.name,
                            id: h.id,
                            tag: h.tag,
                            who: h.who,
                            state: None,
                            added,
                            hidden: None,
                            children: Vec::new(),
                        },
                    });
                    let last = recs.len() - 1;
                    &mut recs[last]
                }
            };
            rec.node.added |= added;
            if !added {
                ctx.last = Some((ind, h.hash));
            }
            continue;
        }
        let Some((fi, hash)) = ctx.last.as_ref() else {
            continue;
        };
        if ind <= *fi {
            continue;
        }
        let Some(rec) = recs.iter_mut().find(|r| &r.hash == hash) else {
            continue;
        };
        if t.starts_with("mState=") {
            rec.node.state = kv(t, "mState").and_then(|v| v.parse().ok());
            if rec.node.who.is_none() {
                rec.node.who = kv(t, "mWho").map(str::to_string);
            }
        } else if t.starts_with("mHidden=") {
            rec.node.hidden = kv(t, "mHidden").and_then(|v| v.parse().ok());
        }
    }
    (resumed, recs)
}

fn build(recs: &[Rec], parent: Option<&str>, depth: usize) -> Vec<FragmentNode> {
    if depth > 32 {
        return Vec::new();
    }
    recs.iter()
        .filter(|r| r.parent.as_deref() == parent && r.node.name != "ReportFragment")
        .map(|r| {
            let mut node = r.node.clone();
            node.children = build(recs, Some(&r.hash), depth + 1);
            node
        })
        .collect()
}

fn current(nodes: &[FragmentNode], out: &mut Vec<String>) {
    for n in nodes.iter().filter(|n| n.added && n.hidden != Some(true)) {
        let before = out.len();
        current(&n.children, out);
        if out.len() == before {
            out.push(n.name.clone());
        }
    }
}

/// Every `ACTIVITY` block in the dump, in the order printed.
pub fn parse_all_fragments(text: &str) -> Vec<TopFragments> {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with("ACTIVITY ") && indent(lines[i]) <= 4)
        .collect();
    let mut out = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(lines.len());
        let head: Vec<&str> = lines[start].split_whitespace().collect();
        // A `TASK ...` line at column 0 starts the next task's block.
        let body_end = (start + 1..end)
            .find(|&i| lines[i].starts_with("TASK "))
            .unwrap_or(end);
        let (resumed, recs) = fragments_of(&lines[start + 1..body_end]);
        let fragments = build(&recs, None, 0);
        let mut cur = Vec::new();
        current(&fragments, &mut cur);
        out.push(TopFragments {
            activity: head.get(1).and_then(|c| Component::parse(c)),
            pid: head
                .iter()
                .find_map(|w| w.strip_prefix("pid=")?.parse().ok()),
            resumed,
            fragments,
            current: cur,
        });
    }
    out
}

/// The top activity's fragments: the resumed one, else the first printed.
pub fn parse_top_fragments(text: &str) -> Option<TopFragments> {
    let mut all = parse_all_fragments(text);
    let i = all
        .iter()
        .position(|a| a.resumed == Some(true))
        .unwrap_or(0);
    (i < all.len()).then(|| all.swap_remove(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Built by hand following the AOSP/androidx dump code quoted in the module doc, exactly
    // (indentation included): an Android 13 app using androidx.fragment 1.6 and Navigation,
    // NavHostFragment holding a back-stack destination (active, not added) and the current
    // one (added), which itself hosts a child fragment; plus the platform manager's
    // ReportFragment in the legacy `Active Fragments in <hash>:` format.
    const TOP: &str = "TASK 10150:com.example.shop id=31 userId=0
  ACTIVITY com.example.shop/.MainActivity 4f2a1c8 pid=12345
    Local Activity 9d3e7b2 State:
      mResumed=true mStopped=false mFinished=false
      mIsInMultiWindowMode=false mIsInPictureInPictureMode=false
      mChangingConfigurations=false
      mCurrentConfig={1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long port finger qwerty/v/v dpad/v s.2}
      mLoadersStarted=true
      Active Fragments in 1c2d3e4:
        #0: ReportFragment{7a6b5c4 #0 androidx.lifecycle.LifecycleDispatcher.report_fragment_tag}
          mFragmentId=#0 mContainerId=#0 mTag=androidx.lifecycle.LifecycleDispatcher.report_fragment_tag
          mState=5 mIndex=0 mWho=android:fragment:0 mBackStackNesting=0
          mAdded=true mRemoving=false mFromLayout=false mInLayout=false
          mHidden=false mDetached=false mMenuVisible=true mHasMenu=false
          mRetainInstance=false mRetaining=false mUserVisibleHint=true
          mFragmentManager=FragmentManager{1c2d3e4 in MainActivity{9d3e7b2}}
          mHost=android.app.Activity$HostCallbacks@3f4e5d6
      Added Fragments:
        #0: ReportFragment{7a6b5c4 #0 androidx.lifecycle.LifecycleDispatcher.report_fragment_tag}
      FragmentManager misc state:
        mHost=android.app.Activity$HostCallbacks@3f4e5d6
        mContainer=android.app.Activity$HostCallbacks@3f4e5d6
        mCurState=5 mStateSaved=false mDestroyed=false
    Local FragmentActivity 9d3e7b2 State:
      mCreated=true mResumed=true mStopped=false
    Active Fragments:
    NavHostFragment{8e1f2a3} (0b7c5d2e-3f41-4a8b-9c6d-1e2f3a4b5c6d id=0x7f0a0154)
        mFragmentId=#7f0a0154 mContainerId=#7f0a0154 mTag=null
        mState=7 mWho=0b7c5d2e-3f41-4a8b-9c6d-1e2f3a4b5c6d mBackStackNesting=0
        mAdded=true mRemoving=false mFromLayout=true mInLayout=true
        mHidden=false mDetached=false mMenuVisible=true mHasMenu=false
        mRetainInstance=false mUserVisibleHint=true
        mFragmentManager=FragmentManager{6d5c4b3 in HostCallbacks{2a3b4c5}}
        mHost=androidx.fragment.app.FragmentActivity$HostCallbacks@2a3b4c5
        mPopDirection=false
        mContainer=androidx.fragment.app.FragmentContainerView{c0d1e2f V.E...... ........ 0,0-1080,2274 #7f0a0154 app:id/nav_host}
        mView=androidx.fragment.app.FragmentContainerView{c0d1e2f V.E...... ........ 0,0-1080,2274 #7f0a0154 app:id/nav_host}
        Child FragmentManager{9f8e7d6 in NavHostFragment{8e1f2a3}}}:
          Active Fragments:
          ProductListFragment{1a2b3c4} (5e6f7a8b-0c1d-4e2f-8a3b-4c5d6e7f8a9b id=0x7f0a0154)
              mFragmentId=#7f0a0154 mContainerId=#7f0a0154 mTag=null
              mState=1 mWho=5e6f7a8b-0c1d-4e2f-8a3b-4c5d6e7f8a9b mBackStackNesting=0
              mAdded=false mRemoving=false mFromLayout=false mInLayout=false
              mHidden=false mDetached=false mMenuVisible=true mHasMenu=false
              mRetainInstance=false mUserVisibleHint=true
              mFragmentManager=FragmentManager{9f8e7d6 in NavHostFragment{8e1f2a3}}
              mHost=androidx.fragment.app.FragmentActivity$HostCallbacks@2a3b4c5
              mParentFragment=NavHostFragment{8e1f2a3} (0b7c5d2e-3f41-4a8b-9c6d-1e2f3a4b5c6d id=0x7f0a0154)
              mPopDirection=false
              Child FragmentManager{3b4c5d6 in ProductListFragment{1a2b3c4}}}:
                Back Stack Index: 0
                FragmentManager misc state:
                  mHost=androidx.fragment.app.FragmentActivity$HostCallbacks@2a3b4c5
                  mContainer=androidx.fragment.app.Fragment$5@4d5e6f7
                  mParent=ProductListFragment{1a2b3c4} (5e6f7a8b-0c1d-4e2f-8a3b-4c5d6e7f8a9b id=0x7f0a0154)
                  mCurState=1 mStateSaved=false mStopped=false mDestroyed=false
          CartFragment{2b3c4d5} (6f7a8b9c-1d2e-4f3a-9b4c-5d6e7f8a9b0c id=0x7f0a0154)
              mFragmentId=#7f0a0154 mContainerId=#7f0a0154 mTag=null
              mState=7 mWho=6f7a8b9c-1d2e-4f3a-9b4c-5d6e7f8a9b0c mBackStackNesting=0
              mAdded=true mRemoving=false mFromLayout=false mInLayout=false
              mHidden=false mDetached=false mMenuVisible=true mHasMenu=false
              mRetainInstance=false mUserVisibleHint=true
              mFragmentManager=FragmentManager{9f8e7d6 in NavHostFragment{8e1f2a3}}
              mHost=androidx.fragment.app.FragmentActivity$HostCallbacks@2a3b4c5
              mParentFragment=NavHostFragment{8e1f2a3} (0b7c5d2e-3f41-4a8b-9c6d-1e2f3a4b5c6d id=0x7f0a0154)
              mPopDirection=false
              mContainer=androidx.fragment.app.FragmentContainerView{c0d1e2f V.E...... ........ 0,0-1080,2274 #7f0a0154 app:id/nav_host}
              mView=androidx.constraintlayout.widget.ConstraintLayout{e1f2a3b V.E...... ........ 0,0-1080,2274}
              Child FragmentManager{5d6e7f8 in CartFragment{2b3c4d5}}}:
                Active Fragments:
                CouponBannerFragment{3c4d5e6} (7a8b9c0d-2e3f-4a5b-8c6d-6e7f8a9b0c1d id=0x7f0a0099 tag=coupon)
                    mFragmentId=#7f0a0099 mContainerId=#7f0a0099 mTag=coupon
                    mState=7 mWho=7a8b9c0d-2e3f-4a5b-8c6d-6e7f8a9b0c1d mBackStackNesting=0
                    mAdded=true mRemoving=false mFromLayout=false mInLayout=false
                    mHidden=false mDetached=false mMenuVisible=true mHasMenu=false
                    mRetainInstance=false mUserVisibleHint=true
                    Child FragmentManager{6e7f8a9 in CouponBannerFragment{3c4d5e6}}}:
                      Back Stack Index: 0
                      FragmentManager misc state:
                        mCurState=7 mStateSaved=false mStopped=false mDestroyed=false
                Added Fragments:
                  #0: CouponBannerFragment{3c4d5e6} (7a8b9c0d-2e3f-4a5b-8c6d-6e7f8a9b0c1d id=0x7f0a0099 tag=coupon)
                Back Stack Index: 0
                FragmentManager misc state:
                  mCurState=7 mStateSaved=false mStopped=false mDestroyed=false
          Added Fragments:
            #0: CartFragment{2b3c4d5} (6f7a8b9c-1d2e-4f3a-9b4c-5d6e7f8a9b0c id=0x7f0a0154)
          Back Stack Index: 0
          FragmentManager misc state:
            mCurState=7 mStateSaved=false mStopped=false mDestroyed=false
    Added Fragments:
      #0: NavHostFragment{8e1f2a3} (0b7c5d2e-3f41-4a8b-9c6d-1e2f3a4b5c6d id=0x7f0a0154)
    Back Stack Index: 0
    FragmentManager misc state:
      mHost=androidx.fragment.app.FragmentActivity$HostCallbacks@2a3b4c5
      mContainer=androidx.fragment.app.FragmentActivity$HostCallbacks@2a3b4c5
      mCurState=7 mStateSaved=false mStopped=false mDestroyed=false
    ViewRoot:
      mAdded=true mRemoved=false mStopped=false mPausedForTransition=false
    View Hierarchy:
      DecorView@5f6a7b8[MainActivity]
        android.widget.LinearLayout{a1b2c3d V.E...... ........ 0,0-1080,2400}
    Looper (main, tid 2) {8c9d0e1}
      (Total messages: 0, polling=false, quitting=false)
";

    #[test]
    fn navigation_tree_and_current_destination() {
        let top = parse_top_fragments(TOP).unwrap();
        assert_eq!(
            top.activity.as_ref().unwrap().class,
            "com.example.shop.MainActivity"
        );
        assert_eq!(top.pid, Some(12345));
        assert_eq!(top.resumed, Some(true));
        assert_eq!(
            top.fragments.len(),
            1,
            "ReportFragment left out: {:?}",
            top.fragments
        );
        let nav = &top.fragments[0];
        assert_eq!(nav.name, "NavHostFragment");
        assert_eq!(nav.id.as_deref(), Some("0x7f0a0154"));
        assert_eq!(nav.state, Some(7));
        assert!(nav.added);
        let names: Vec<&str> = nav.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["ProductListFragment", "CartFragment"]);
        assert!(
            !nav.children[0].added,
            "back-stack destination is only active"
        );
        assert_eq!(nav.children[0].state, Some(1));
        assert!(nav.children[1].added);
        let coupon = &nav.children[1].children[0];
        assert_eq!(coupon.tag.as_deref(), Some("coupon"));
        assert_eq!(
            coupon.who.as_deref(),
            Some("7a8b9c0d-2e3f-4a5b-8c6d-6e7f8a9b0c1d")
        );
        assert_eq!(coupon.hidden, Some(false));
        assert_eq!(top.current, vec!["CouponBannerFragment"]);
    }

    #[test]
    fn legacy_header_and_junk() {
        let h = header("#0: HomeFragment{5e4d3c2 #0 id=0x7f0800a1 home}").unwrap();
        assert_eq!(
            (h.name.as_str(), h.hash.as_str()),
            ("HomeFragment", "5e4d3c2")
        );
        assert_eq!(h.id.as_deref(), Some("0x7f0800a1"));
        assert_eq!(h.tag.as_deref(), Some("home"));
        assert!(header("mParent=NavHostFragment{8e1f2a3}").is_none());
        assert!(header("DecorView@5f6a7b8[MainActivity]").is_none());
        assert!(parse_top_fragments("").is_none());
        let odd = parse_all_fragments("  ACTIVITY garbage\n    Active Fragments:\n    X{zz}\n");
        assert_eq!(odd.len(), 1);
        assert!(odd[0].fragments.is_empty() && odd[0].activity.is_none());
    }

    #[test]
    fn resumed_activity_wins_over_first() {
        let two = format!(
            "TASK 10151:com.example.other id=40 userId=0\n  ACTIVITY com.example.other/.Split 1 pid=9\n    Local Activity 2 State:\n      mResumed=false mStopped=false mFinished=false\n{TOP}"
        );
        assert_eq!(parse_all_fragments(&two).len(), 2);
        let top = parse_top_fragments(&two).unwrap();
        assert_eq!(top.activity.unwrap().package, "com.example.shop");
    }
}
