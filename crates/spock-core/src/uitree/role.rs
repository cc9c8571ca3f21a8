//! What a node *is* to a user (button, text field, list…), derived from its class and flags.
//!
//! Agents think in roles ("the Sign in button", "the first input"), not class names, and the
//! class alone misleads on Compose: a Compose button is usually a clickable `android.view.View`
//! whose label sits on a child. So clickable generic nodes count as buttons, and checkable ones
//! as checkboxes, whatever their class.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Node;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Button,
    #[serde(alias = "textfield", alias = "edittext", alias = "textbox")]
    Input,
    Text,
    Image,
    #[serde(alias = "scrollable", alias = "scroll")]
    List,
    Checkbox,
    #[serde(alias = "toggle")]
    Switch,
    Radio,
    #[serde(alias = "seekbar")]
    Slider,
    #[serde(alias = "progressbar")]
    Progress,
    #[serde(alias = "webview")]
    Web,
    /// A layout node with nothing of its own to read or do.
    Container,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Button => "button",
            Role::Input => "input",
            Role::Text => "text",
            Role::Image => "image",
            Role::List => "list",
            Role::Checkbox => "checkbox",
            Role::Switch => "switch",
            Role::Radio => "radio",
            Role::Slider => "slider",
            Role::Progress => "progress",
            Role::Web => "web",
            Role::Container => "container",
        }
    }

    pub fn of(node: &Node) -> Role {
        let short = node.short_class();
        if is_edit_class(&node.class) {
            return Role::Input;
        }
        if short.contains("Switch") || short == "ToggleButton" {
            return Role::Switch;
        }
        if short.contains("RadioButton") {
            return Role::Radio;
        }
        if short.contains("CheckBox") || short == "CheckedTextView" {
            return Role::Checkbox;
        }
        if short.contains("SeekBar") || short.contains("Slider") || short == "RatingBar" {
            return Role::Slider;
        }
        if short.contains("ProgressBar") {
            return Role::Progress;
        }
        if short == "WebView" {
            return Role::Web;
        }
        if short.ends_with("Button") {
            return Role::Button;
        }
        if node.scrollable || is_list_class(short) {
            return Role::List;
        }
        if node.checkable {
            return Role::Checkbox;
        }
        if node.clickable || node.long_clickable {
            return Role::Button;
        }
        if short.contains("ImageView") {
            return Role::Image;
        }
        if !node.text.trim().is_empty() || short.ends_with("TextView") {
            return Role::Text;
        }
        // A Compose `Icon`/`Image` with a description is a plain `View` leaf with a desc.
        if node.in_compose && node.children.is_empty() && !node.content_desc.trim().is_empty() {
            return Role::Image;
        }
        Role::Container
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

pub(crate) fn is_edit_class(class: &str) -> bool {
    let short = class.rsplit('.').next().unwrap_or(class);
    short.ends_with("EditText")
        || short.ends_with("AutoCompleteTextView")
        || short.contains("TextInput")
        || short.contains("TextField")
}

fn is_list_class(short: &str) -> bool {
    [
        "RecyclerView",
        "ListView",
        "GridView",
        "ScrollView",
        "HorizontalScrollView",
        "NestedScrollView",
        "ViewPager",
        "ViewPager2",
    ]
    .contains(&short)
}

/// Pure layout: counted neither as View *content* nor shown in the compact form.
pub(crate) fn is_layout_container(class: &str) -> bool {
    let short = class.rsplit('.').next().unwrap_or(class);
    matches!(
        short,
        "FrameLayout"
            | "LinearLayout"
            | "LinearLayoutCompat"
            | "RelativeLayout"
            | "ConstraintLayout"
            | "CoordinatorLayout"
            | "GridLayout"
            | "TableLayout"
            | "TableRow"
            | "ViewGroup"
            | "View"
            | "DecorView"
            | "ActionBarOverlayLayout"
            | "ContentFrameLayout"
            | "FitWindowsLinearLayout"
            | "FitWindowsFrameLayout"
            | "AppBarLayout"
            | "CollapsingToolbarLayout"
            | "SwipeRefreshLayout"
            | "DrawerLayout"
            | "CardView"
            | "MaterialCardView"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uitree::fixtures::fixture;
    use crate::uitree::parse;

    fn role_of(file: &str, pred: impl Fn(&Node) -> bool) -> Role {
        let tree = parse(&fixture(file)).expect("parses");
        tree.nodes().iter().find(|n| pred(n)).expect("node").role()
    }

    #[test]
    fn roles_from_real_views_and_compose_nodes() {
        let f = "views-system-anr-dialog.xml";
        assert_eq!(role_of(f, |n| n.text == "Wait"), Role::Button);
        assert_eq!(
            role_of(f, |n| n.text.starts_with("Process system")),
            Role::Text
        );
        let f = "rn-wdio-login-edittext.xml";
        assert_eq!(role_of(f, |n| n.content_desc == "input-email"), Role::Input);
        assert_eq!(role_of(f, |n| n.content_desc == "Login-screen"), Role::List);
        let f = "views-aena-welcome-recyclerview.xml";
        assert_eq!(role_of(f, |n| n.class.ends_with("ImageView")), Role::Image);
        assert_eq!(
            role_of(f, |n| n.class.ends_with("RecyclerView")),
            Role::List
        );
        let f = "compose-music-settings.xml";
        // Compose chips: a clickable, checkable View holding a Text and a CheckBox child.
        assert_eq!(
            role_of(f, |n| n.checkable && n.class == "android.view.View"),
            Role::Checkbox
        );
        assert_eq!(role_of(f, |n| n.class.ends_with("SeekBar")), Role::Slider);
        let f = "compose-music-player.xml";
        assert_eq!(role_of(f, |n| n.content_desc == "Close"), Role::Image);
        assert_eq!(
            role_of(f, |n| n.clickable && n.class == "android.view.View"),
            Role::Button
        );
        let f = "views-gms-webview-dialog.xml";
        assert_eq!(role_of(f, |n| n.class.ends_with("WebView")), Role::Web);
        let f = "compose-reader-library.xml";
        assert_eq!(
            role_of(f, |n| n.class.ends_with("ProgressBar")),
            Role::Progress
        );
    }

    #[test]
    fn role_names_and_aliases_deserialize() {
        let r: Role = serde_json::from_str("\"textfield\"").expect("alias");
        assert_eq!(r, Role::Input);
        let r: Role = serde_json::from_str("\"scrollable\"").expect("alias");
        assert_eq!(r, Role::List);
        assert!(serde_json::from_str::<Role>("\"spaceship\"").is_err());
    }
}
