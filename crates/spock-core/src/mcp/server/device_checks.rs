//! The pipeline's checks of the device a call acts on: another client's lease (before
//! anything, once the call is pinned, while it waits for a person, and after the yes), and
//! that the pinned connection still reaches the phone the person was shown.
use super::Ctx;
use crate::mcp::registry::{Level, ToolDef};
use crate::mcp::result::ToolError;

/// An action on a device another client has leased is refused here, before anything runs and
/// before anyone is asked; reads, the holder's own calls and the control centre's pass. A lease
/// covers the physical device, under any name that reaches it ([`crate::mcp::lease::Target`]). The
/// pipeline checks again once a destructive call is pinned, watches while it waits for a
/// person, and checks once more after the yes.
pub(super) async fn check_lease(
    ctx: &Ctx,
    tool: &ToolDef,
    requested: Option<&str>,
) -> Result<(), ToolError> {
    let Some((device, holder)) = lease_subject(ctx, tool, requested).await else {
        return Ok(());
    };
    let identity = crate::mcp::lease::identity(&ctx.core, &device).await;
    let target = crate::mcp::lease::Target {
        device: &device,
        identity: identity.as_deref(),
    };
    let leases = &ctx.core.sessions.leases;
    leases.refresh(|d| ctx.core.devices.identity(d));
    if let Some(lease) = leases.blocker(target, Some(&holder)) {
        return Err(leased(tool, &lease, ""));
    }
    // A device that cannot say who it is could be the leased phone under another name.
    if identity.is_none()
        && let Some(lease) = leases.any_held_by_other(&holder)
    {
        return Err(ToolError::refused(format!(
            "{} was not run: {device} has not said which phone it is (its build properties \
             could not be read yet), so it could be {} under another name, which is leased by \
             {}. Try again in a moment, or ask the holder to release its lease.",
            tool.name,
            lease.device,
            lease.holder.describe()
        ))
        .with_details(serde_json::json!({ "lease": lease.info(tokio::time::Instant::now()) })));
    }
    Ok(())
}

/// The device a call's lease check is about and who would be held back, or `None` when no
/// lease can hold this call back (a read, no device, the person's own call, no leases).
async fn lease_subject(
    ctx: &Ctx,
    tool: &ToolDef,
    requested: Option<&str>,
) -> Option<(String, crate::mcp::lease::Holder)> {
    if tool.level == Level::ReadOnly || !tool.device || ctx.core.sessions.leases.is_empty() {
        return None;
    }
    let holder = crate::mcp::lease::Holder::of(&ctx.origin)?;
    // A device that does not resolve is the tool's own error to report.
    let dev = ctx.device(requested).await.ok()?;
    Some((dev.serial().to_string(), holder))
}

/// The refusal for a call on another client's leased device; `when` says at which point it
/// was found (empty: before anything).
fn leased(tool: &ToolDef, lease: &crate::mcp::lease::Lease, when: &str) -> ToolError {
    let now = tokio::time::Instant::now();
    ToolError::refused(format!(
        "{} was not run: {}{when}. Reads stay allowed; it frees when the holder releases it \
         (android_lease_device release=true) or disconnects, when it expires, or when a \
         person breaks it on the control centre's Status screen.",
        tool.name,
        lease.describe(now)
    ))
    .with_details(serde_json::json!({ "lease": lease.info(now) }))
}

/// After the yes: the pinned connection still reaches the phone the person was shown (asked
/// again through it). A phone whose identity could not be read when it was shown cannot be
/// told apart from another, and is not checked.
pub(super) async fn still_the_phone_shown(
    ctx: &Ctx,
    tool: &ToolDef,
    shown: Option<&str>,
) -> Result<(), ToolError> {
    let (Some(shown), Some(dev)) = (shown, &ctx.pinned) else {
        return Ok(());
    };
    match crate::device::identity::read_live(dev, ctx.timeout()).await {
        Ok(now) if now.identity.as_deref() == Some(shown) => Ok(()),
        Ok(now) => Err(ToolError::refused(format!(
            "{} was not run: the device at {} is not the phone the person approved (that phone \
             went away and {} answers there now)",
            tool.name,
            dev.serial(),
            now.model.as_deref().unwrap_or("another device")
        ))),
        Err(e) => Err(ToolError::refused(format!(
            "{} was not run: it could not be confirmed that {} is still the phone the person \
             approved ({e})",
            tool.name,
            dev.serial()
        ))),
    }
}

/// Resolves once another client leases the device a waiting call was pinned to (never when
/// the call cannot be held back by a lease). The person's modal is withdrawn first, saying
/// why, so nothing can approve it any more.
pub(super) async fn leased_while_waiting(
    ctx: &Ctx,
    tool: &ToolDef,
    shown: Option<&str>,
) -> ToolError {
    let subject = match &ctx.pinned {
        Some(dev) if tool.device => {
            crate::mcp::lease::Holder::of(&ctx.origin).map(|h| (dev.serial().to_string(), h))
        }
        _ => None,
    };
    let Some((device, holder)) = subject else {
        return std::future::pending().await;
    };
    let lease = crate::mcp::lease::leased_by_other(&ctx.core, &device, shown, &holder).await;
    ctx.core.confirmer.withdraw_because(
        ctx.call_id,
        format!(
            "{} is now leased by {}: approving it would run nothing",
            lease.device,
            lease.holder.describe()
        ),
    );
    leased(
        tool,
        &lease,
        " (taken while the call waited for approval: the request was withdrawn)",
    )
}
