import QRCode from 'qrcode';

/**
 * The display's QR code as inline SVG, made on the server (no script, no network at the display). Dark modules
 * on a white square whatever the page's theme: phone cameras read dark-on-light codes most reliably.
 * The result depends only on the URL, so it is kept (a bounded map: a busy service shows a few hundred places).
 */
const cache = new Map<string, string>();
const CACHE_MAX = 500;

export const QR_OPTIONS = { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } } as const;

export async function qrCodeSvg(url: string): Promise<string> {
  const known = cache.get(url);
  if (known) return known;
  const svg = await QRCode.toString(url, QR_OPTIONS);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(url, svg);
  return svg;
}
