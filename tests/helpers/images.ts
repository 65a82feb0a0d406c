/**
 * Small but real image files for upload tests (a 1x1 PNG and a 1x1 JPEG that decode without a warning, as every
 * upload is decoded and written anew), and a file that only
 * pretends to be an image by its name.
 */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

export const JPEG_1X1 = Buffer.from(
  '/9j/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAABAAEDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAAAP/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/AKwAf//Z',
  'base64',
);

export const NOT_AN_IMAGE = Buffer.from('%PDF-1.4\nthis is not an image\n');

/** What a decoded image is: its format and size. A stored upload is the same image, written anew, not the same bytes. */
export async function imageShape(bytes: Buffer): Promise<{ format: string; width: number; height: number }> {
  const sharp = (await import('sharp')).default;
  const { format, width, height } = await sharp(bytes).metadata();
  return { format, width, height };
}
