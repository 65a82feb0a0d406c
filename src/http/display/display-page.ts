/**
 * The HTML of the neighbourhood display (`GET /display/{location_id}`). Everything from the database is
 * escaped here; the page's script (assets/display.js) fills in posts with textContent only.
 */
export type DisplayTheme = 'light' | 'dark' | null;

export interface DisplayPageData {
  locationId: string;
  name: string;
  members: number;
  posts: number;
  stores: number;
  feedUrl: string;
  qrSvg: string;
  theme: DisplayTheme;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const ASSETS = '/display/assets';

function head(title: string, theme: DisplayTheme): string {
  return `<!doctype html>
<html lang="en"${theme ? ` data-theme="${theme}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${theme ?? 'light dark'}">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${ASSETS}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS}/display.css">`;
}

const count = (n: number, one: string, many: string) => `<span class="count"><strong class="count__value">${n}</strong> <span class="count__label" data-one="${one}" data-many="${many}">${n === 1 ? one : many}</span></span>`;

export function displayPage(d: DisplayPageData): string {
  return `${head(`${d.name} · live`, d.theme)}
<script type="module" src="${ASSETS}/display.js"></script>
</head>
<body data-location-id="${escapeHtml(d.locationId)}" data-status="connecting">
<header class="masthead">
  <div class="masthead__place">
    <p class="masthead__kicker">Live from the neighbourhood</p>
    <h1 class="masthead__name" id="place-name">${escapeHtml(d.name)}</h1>
    <p class="masthead__counts">
      <span id="count-members">${count(d.members, 'neighbour', 'neighbours')}</span>
      <span id="count-posts">${count(d.posts, 'post', 'posts')}</span>
      <span id="count-stores">${count(d.stores, 'shop', 'shops')}</span>
    </p>
  </div>
  <div class="masthead__side">
    <p class="status" id="status" role="status"><span class="status__dot"></span><span class="status__text">Connecting…</span></p>
    <p class="clock" id="clock"></p>
  </div>
  <a class="qr" id="qr" href="${escapeHtml(d.feedUrl)}">
    <span class="qr__code">${d.qrSvg}</span>
    <span class="qr__caption">Scan to join the conversation</span>
  </a>
</header>
<main class="board">
  <section class="stream" aria-label="Latest posts">
    <p class="stream__empty" id="empty">Nothing posted here yet. Scan the code and be the first.</p>
    <ol class="stream__posts" id="posts"></ol>
  </section>
  <aside class="market" id="market" hidden>
    <section class="market__section" id="stores-section" hidden>
      <h2 class="market__title">Local shops</h2>
      <ul class="market__list" id="stores"></ul>
    </section>
    <section class="market__section" id="products-section" hidden>
      <h2 class="market__title">New in the shops</h2>
      <ul class="market__list" id="products"></ul>
    </section>
    <section class="market__section" id="tags-section" hidden>
      <h2 class="market__title">Trending here</h2>
      <ul class="tags" id="tags"></ul>
    </section>
  </aside>
</main>
</body>
</html>
`;
}

/** A readable answer for an address that names no place (unknown or malformed id): never a blank page. */
export function missingPlacePage(theme: DisplayTheme): string {
  return `${head('Place not found', theme)}
</head>
<body class="notice">
<main class="notice__box">
  <h1>This place does not exist</h1>
  <p>No neighbourhood has this address. Check the link of this display: it ends with the place's identifier.</p>
</main>
</body>
</html>
`;
}

/** The database is busy, or the address asked too often: the display's browser tries again after `retrySeconds`. */
export function unavailablePage(theme: DisplayTheme, retrySeconds = 15): string {
  return `${head('Temporarily unavailable', theme)}
<meta http-equiv="refresh" content="${Math.max(1, Math.ceil(retrySeconds))}">
</head>
<body class="notice">
<main class="notice__box">
  <h1>Back in a moment</h1>
  <p>The service is busy. This page tries again by itself.</p>
</main>
</body>
</html>
`;
}
