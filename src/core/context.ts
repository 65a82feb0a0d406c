/**
 * What an operation knows about its caller, whichever transport brought the call.
 * Built by src/http for a request and by src/realtime for a socket event.
 */
export interface AuthUser {
  id: string;
  username: string;
  email: string;
  isStaff: boolean;
  isAdmin: boolean;
  isVerified: boolean;
}

export interface UploadedFile {
  fieldname: string;
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

export interface RequestContext {
  transport: 'http' | 'socket';
  requestId: string;
  /** The authenticated caller, or null for an anonymous caller. */
  user: AuthUser | null;
  /** Set when the caller presented a token that did not verify: authenticated operations answer 401. */
  authError: boolean;
  ip: string;
  userAgent: string;
  /** Base of absolute URLs (media, pagination links): PUBLIC_BASE_URL or the request's own origin. */
  baseUrl: string;
  /** Cookies sent with the request (empty on the socket). */
  cookies: Record<string, string>;
  /** Socket rooms this caller is subscribed to (socket transport only), for realtime.sync. */
  subscriptions?: ReadonlyArray<{ channel: string; id: string }>;
}

export type AuthedContext = RequestContext & { user: AuthUser };
