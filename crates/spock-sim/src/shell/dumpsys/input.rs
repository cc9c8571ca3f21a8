//! `dumpsys input`: the part of the Input Reader state that says how the touchscreen maps to
//! the display: its viewport (`DisplayViewport::toString`, with `orientation=N`) and
//! `SurfaceOrientation: N`, as `TouchInputMapper::dumpSurface` prints them (AOSP
//! frameworks/native services/inputflinger/reader/mapper/TouchInputMapper.cpp, as vendored in
//! nohajc/vendor-adb-patched @7f722c8d). The panel's raw size stays upright; the viewport's
//! logical frame turns with the display.
use super::super::Ctx;

pub fn input(ctx: &mut Ctx) -> i32 {
    let disp = ctx.st.display();
    let (nw, nh) = disp.natural;
    let (w, h) = disp.size();
    let r = disp.rotation;
    let o = format!(
        "INPUT MANAGER (dumpsys input)\n\n\
Input Manager State:\n  Interactive: {interactive}\n  System UI Lights Out: false\n  Pointer Speed: 0\n  Pointer Gestures Enabled: true\n  Show Touches: false\n  Pointer Capture: Disabled, seq=0\n\n\
Event Hub State:\n  BuiltInKeyboardId: -2\n  Devices:\n    6: fts\n      Classes: TOUCH | TOUCH_MT\n      Path: /dev/input/event2\n      Enabled: true\n\n\
Input Reader State (Nums of device: 1):\n  Device 6: fts\n    EventHub Devices: [ 6 ] \n    Generation: 24\n    IsExternal: false\n    AssociatedDisplayPort: <none>\n    AssociatedDisplayUniqueId: <none>\n    HasMic:     false\n    Sources: TOUCHSCREEN\n    KeyboardType: 0\n    ControllerNum: 0\n    Touch Input Mapper (mode - DIRECT):\n      Parameters:\n        GestureMode: MULTI_TOUCH\n        DeviceType: TOUCH_SCREEN\n        AssociatedDisplay: hasAssociatedDisplay=true, isExternal=false, displayId=''\n        OrientationAware: true\n      Raw Touch Axes:\n        X: min=0, max={xmax}, flat=0, fuzz=0, resolution=0\n        Y: min=0, max={ymax}, flat=0, fuzz=0, resolution=0\n      Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=129, orientation={r}, logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {w}, {h}], deviceSize=[{nw}, {nh}], isActive=[1]\n      RawSurfaceWidth: {nw}px\n      RawSurfaceHeight: {nh}px\n      SurfaceLeft: 0\n      SurfaceTop: 0\n      SurfaceRight: {nw}\n      SurfaceBottom: {nh}\n      PhysicalWidth: {nw}px\n      PhysicalHeight: {nh}px\n      PhysicalLeft: 0\n      PhysicalTop: 0\n      SurfaceOrientation: {r}\n",
        interactive = ctx.st.awake,
        xmax = nw.saturating_sub(1),
        ymax = nh.saturating_sub(1),
    );
    ctx.out(&o);
    0
}
