// The phone's kind as the audience's pages report it to the hub (the field check's result, the
// listener's reach report): a platform and a browser with their major versions, from the user
// agent, never the user agent itself, so a report says what kind of phone heard, not which phone.

/** The phone's kind, short: a platform and a browser with their major versions, never the whole
 * user agent (and on Chromium the model, when the browser tells it). */
export async function phoneKind() {
  const ua = navigator.userAgent;
  let platform = "unknown";
  let match;
  if ((match = ua.match(/Android (\d+)/))) platform = `Android ${match[1]}`;
  else if ((match = ua.match(/(?:iPhone|iPod).*? OS (\d+)/))) platform = `iOS ${match[1]}`;
  else if ((match = ua.match(/iPad.*? OS (\d+)/))) platform = `iPadOS ${match[1]}`;
  else if (/Macintosh/.test(ua)) platform = navigator.maxTouchPoints > 1 ? "iPadOS" : "macOS";
  else if (/Windows/.test(ua)) platform = "Windows";
  else if (/CrOS/.test(ua)) platform = "ChromeOS";
  else if (/Linux/.test(ua)) platform = "Linux";
  try {
    const model = navigator.userAgentData && (await navigator.userAgentData.getHighEntropyValues(["model"])).model;
    if (model) platform += ` (${model})`;
  } catch { /* the model is optional */ }
  const browsers = [
    [/EdgA?\/(\d+)/, "Edge"], [/SamsungBrowser\/(\d+)/, "Samsung Internet"], [/(?:Firefox|FxiOS)\/(\d+)/, "Firefox"],
    [/CriOS\/(\d+)/, "Chrome"], [/Chrome\/(\d+)/, /HeadlessChrome|Chromium/.test(ua) ? "Chromium" : "Chrome"],
    [/Version\/(\d+).*Safari/, "Safari"],
  ];
  let browser = "unknown";
  for (const [pattern, name] of browsers) {
    if ((match = ua.match(pattern))) { browser = `${name} ${match[1]}`; break; }
  }
  return { platform: platform.slice(0, 64), browser: browser.slice(0, 64) };
}
