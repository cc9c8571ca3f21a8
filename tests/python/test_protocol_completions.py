"""Completions (issue 20): completion/complete for prompt arguments (packages on the device by
prefix, a package's requested permissions, deep links and activities from the selected
project's manifest) and template variables (serials, logcat levels), in both HTTP eras and
over stdio. A switched-off tool's answers are not offered."""
import mcp_types as types
import pytest
from conftest import start_instance
from protocol_common import ERAS, connected

pytestmark = pytest.mark.anyio

MANIFEST = """<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.example.shop">
  <application>
    <activity android:name=".MainActivity"/>
    <activity android:name=".ProductActivity">
      <intent-filter>
        <action android:name="android.intent.action.VIEW"/>
        <data android:scheme="shop" android:host="product"/>
      </intent-filter>
    </activity>
  </application>
</manifest>
"""


@pytest.fixture
def demo(tmp_path):
    proj = tmp_path / "shop"
    (proj / "app" / "src" / "main").mkdir(parents=True)
    (proj / "settings.gradle.kts").write_text('rootProject.name = "shop"\ninclude(":app")\n')
    (proj / "app" / "build.gradle.kts").write_text('android { defaultConfig { applicationId = "com.example.shop" } }\n')
    (proj / "app" / "src" / "main" / "AndroidManifest.xml").write_text(MANIFEST)
    inst = start_instance(tmp_path, "--demo", "--project", str(proj))
    yield inst
    inst.stop()


def prompt(name):
    return types.PromptReference(type="ref/prompt", name=name)


@pytest.mark.parametrize("transport,mode", ERAS)
async def test_completions_for_prompt_arguments(demo, transport, mode):
    async with connected(demo, transport, mode) as c:
        assert c.server_capabilities.completions is not None
        got = (await c.complete(prompt("debug_crash"), {"name": "packageName", "value": "com.example."})).completion
        assert "com.example.shop" in got.values and "com.example.notes" in got.values, got
        assert all(v.startswith("com.example.") for v in got.values), got
        got = (await c.complete(prompt("investigate_permission"), {"name": "permission", "value": "android.permission."},
                                context_arguments={"packageName": "com.example.shop"})).completion
        assert got.values and all(v.startswith("android.permission.") for v in got.values), got
        got = (await c.complete(prompt("test_deep_link"), {"name": "uri", "value": "shop"})).completion
        assert got.values == ["shop://product"], got
        got = (await c.complete(prompt("test_deep_link"), {"name": "activity", "value": ""})).completion
        assert got.values == ["com.example.shop.MainActivity", "com.example.shop.ProductActivity"], got


@pytest.mark.parametrize("transport,mode", ERAS[:2])
async def test_completions_for_template_variables(demo, transport, mode):
    async with connected(demo, transport, mode) as c:
        ref = types.ResourceTemplateReference(type="ref/resource", uri="android://device/{serial}/logcat{?lines,minLevel}")
        got = (await c.complete(ref, {"name": "serial", "value": ""})).completion
        assert got.values, got
        got = (await c.complete(ref, {"name": "minLevel", "value": ""})).completion
        assert got.values == ["D", "E", "F", "I", "V", "W"], got


async def test_a_switched_off_tool_offers_nothing(tmp_path):
    inst = start_instance(tmp_path, "--demo", config='[access]\ndisabled = ["android_list_packages"]\n')
    try:
        async with connected(inst, "stdio", "legacy") as c:
            got = (await c.complete(prompt("debug_crash"), {"name": "packageName", "value": "com."})).completion
            assert got.values == [], got
    finally:
        inst.stop()
