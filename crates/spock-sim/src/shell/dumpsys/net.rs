//! `dumpsys connectivity` and `dumpsys wifi`: the headline sections of the real dumps
//! (connectivity-emulator.txt, wifi-emulator.txt) for one validated Wi-Fi network, in their
//! layout; the dozens of internal tables real devices add are left out.
use super::super::Ctx;

pub fn connectivity(ctx: &mut Ctx) -> i32 {
    ctx.out(
        "NetworkProviders for:
  5: TelephonyNetworkProvider
  4: VpnNetworkProvider:0
  6: WifiNetworkFactory
  2: VcnNetworkProvider

Active default network: 100

Current network preferences: 
  Default requests:

Current Networks:
  NetworkAgentInfo{network{100}  handle{432902426637}  ni{WIFI CONNECTED extra: } created=2024-03-01T10:15:42.000Z Score(Policies : TRANSPORT_PRIMARY&EVER_EVALUATED&EVER_VALIDATED&IS_VALIDATED ; KeepConnected : 0)  created 653122
    Nat464Xlat:
      <not started>
    LinkProperties{InterfaceName: wlan0 LinkAddresses: [ fe80::15:b2ff:fe00:100/64,10.0.2.16/24 ] DnsAddresses: [ /10.0.2.3 ] Domains: null MTU: 1500 ServerAddress: /10.0.2.2 TcpBufferSizes: 524288,1048576,2097152,262144,524288,1048576 Routes: [ fe80::/64 -> :: wlan0 mtu 0,10.0.2.0/24 -> 0.0.0.0 wlan0 mtu 0,0.0.0.0/0 -> 10.0.2.2 wlan0 mtu 0 ]}
    NetworkCapabilities{[ Transports: WIFI Capabilities: NOT_METERED&INTERNET&NOT_RESTRICTED&TRUSTED&NOT_VPN&VALIDATED&NOT_ROAMING&FOREGROUND&NOT_CONGESTED&NOT_SUSPENDED&NOT_VCN_MANAGED&NOT_BANDWIDTH_CONSTRAINED LinkUpBandwidth>=30000Kbps LinkDnBandwidth>=30000Kbps SignalStrength: -50 SSID: \"AndroidWifi\"]}

Status for known UIDs:

Bad Wi-Fi avoidance: unrestricted

Legacy network activity:
  mNetworkActive=true
",
    );
    0
}

pub fn wifi(ctx: &mut Ctx) -> i32 {
    ctx.out(
        "Wi-Fi is enabled
Verbose logging is off
mVerboseLoggingLevel 0
Stay-awake conditions: 0
mInIdleMode false
mScanPending false
mWifiInfo SSID: \"AndroidWifi\", BSSID: 00:13:10:85:fe:01, MAC: 02:15:b2:00:01:00, IP: /10.0.2.16, Security type: 2, Supplicant state: COMPLETED, Wi-Fi standard: 11ac, RSSI: -50, Link speed: 866Mbps, Tx Link speed: 866Mbps, Max Supported Tx Link speed: 866Mbps, Rx Link speed: 866Mbps, Max Supported Rx Link speed: 866Mbps, Frequency: 5180MHz, Net ID: 0, Metered hint: false, score: 60, isUsable: true, CarrierMerged: false, SubscriptionId: -1, IsPrimary: 1, Trusted: true, Restricted: false, Ephemeral: false, OEM paid: false, OEM private: false, OSU AP: false, FQDN: <none>, Provider friendly name: <none>, Requesting package name: <none>
",
    );
    0
}
