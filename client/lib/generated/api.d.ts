export interface AccountExport {
    /** hyperlocal.account-export/1 */
    format: string;
    exported_at: string;
    user: ProfileExport;
    /** Per section cut at 1000 items, the cursor of its next page (GET .../export/{section}/?cursor=) */
    next_cursors: Record<string, string>;
    posts: Array<Post>;
    comments: Array<{
        id: string;
        post: string;
        parent: string | null;
        content: string;
        created_at: string;
        updated_at: string;
        edited_at: string | null;
    }>;
    post_versions: Array<{
        post: string;
        content: string;
        title: string | null;
        content_warning: string | null;
        edited_at: string | null;
        replaced_at: string;
    }>;
    comment_versions: Array<{
        comment: string;
        content: string;
        edited_at: string | null;
        replaced_at: string;
    }>;
    messages: Array<{
        id: string;
        conversation_id: string;
        content: string;
        created_at: string;
    }>;
    stores: Array<Store>;
    products: Array<Product>;
    orders_as_buyer: Array<Order>;
    orders_as_seller: Array<Order>;
    reviews: Array<Review>;
    communities_owned: Array<Community>;
    community_memberships: Array<{
        community: {
            id: string;
            name: string;
        };
        role: string;
        joined_at: string;
    }>;
    post_likes: Array<{
        post: string;
        created_at: string;
    }>;
    post_bookmarks: Array<{
        post: string;
        created_at: string;
    }>;
    comment_likes: Array<{
        comment: string;
        created_at: string;
    }>;
    comment_bookmarks: Array<{
        comment: string;
        created_at: string;
    }>;
    poll_votes: Array<{
        post: string;
        option: string;
        option_text: string;
        created_at: string;
    }>;
    event_rsvps: Array<{
        post: string;
        status: "going" | "interested";
        created_at: string;
        updated_at: string;
    }>;
    location_name_suggestions: Array<{
        id: string;
        location: string;
        suggested_name: string;
        vote_weight: number;
        created_at: string;
    }>;
    blocks: Array<SafetyRelation>;
    mutes: Array<SafetyRelation>;
    reports: Array<{
        id: string;
        target_type: "post" | "comment" | "user" | "message" | "store" | "product" | "community";
        target_id: string;
        reason: "spam" | "harassment" | "hate" | "violence" | "sexual" | "scam" | "other";
        status: "open" | "resolved";
        created_at: string;
        details: string | null;
    }>;
    webhooks: Array<Webhook>;
    push_subscriptions: Array<PushSubscription>;
}
export interface AccountExportPage {
    section: string;
    results: Array<unknown>;
    /** null on the last page */
    next_cursor: string | null;
}
export interface AdminUser {
    id: string;
    /** Only for the user themself and for staff; absent for everyone else. */
    email?: string;
    username: string;
    display_name: string;
    is_verified: boolean;
    bio: string;
    profile_picture: string | null;
    website: string;
    relationship_status: string | null;
    banner: string | null;
    location: {
        id: string;
        name: string;
    } | null;
    store: {
        id: string;
        name: string;
        description: string;
    } | null;
    owned_communities: Array<{
        id: string;
        name: string;
        description: string;
    }>;
    created_at: string;
    updated_at: string;
    /** Whether search finds the person by name, and their posts and comments (default true). Only for the user themself and for staff. */
    discoverable?: boolean;
    is_staff: boolean;
    is_active: boolean;
}
export type BadRequest = FieldErrors | DetailError | ErrorMessage;
export interface Comment {
    id: string;
    user: PostAuthor;
    post: string;
    content: string;
    parent: string | null;
    replies_count: number;
    likes_count: number;
    bookmarks_count: number;
    views_count: number;
    has_liked: boolean;
    has_bookmarked: boolean;
    created_at: string;
    updated_at: string;
    /** When its author last changed its text; null until then (earlier versions: GET /api/posts/comments/{comment_id}/history/) */
    edited_at: string | null;
    /** Its hashtags, lower case, in order of first use */
    tags: Array<string>;
}
export interface CommentSearchHit {
    id: string;
    user: PostAuthor;
    post: string;
    content: string;
    parent: string | null;
    replies_count: number;
    likes_count: number;
    bookmarks_count: number;
    views_count: number;
    has_liked: boolean;
    has_bookmarked: boolean;
    created_at: string;
    updated_at: string;
    /** When its author last changed its text; null until then (earlier versions: GET /api/posts/comments/{comment_id}/history/) */
    edited_at: string | null;
    /** Its hashtags, lower case, in order of first use */
    tags: Array<string>;
    /** Plain text around the match, at most 200 characters */
    snippet: string;
    /** [start, end) offsets into `snippet` (UTF-16 code units, as JavaScript strings index) of the words that matched; no markup anywhere */
    highlights: Array<[number, number]>;
}
export interface CommentVersion {
    content: string;
    /** When this version was made by an edit; null for the version first posted */
    edited_at: string | null;
}
export interface CommunitiesEnhancement {
    type: "communities";
    items: Array<CommunitySummary>;
    inject_at_positions: Array<number>;
    title: string;
}
export interface Community {
    id: string;
    name: string;
    description: string;
    avatar: string | null;
    members_count: number;
    posts_count: number;
    category: {
        id: string;
        name: string;
    };
    banner: string | null;
    location: {
        id: string;
        name: string;
    } | null;
    owner: UserSummary;
    /** Whether the caller is a member */
    is_member: boolean;
    created_at: string;
    updated_at: string;
}
export interface CommunityCategory {
    id: string;
    name: string;
    group: {
        id: string;
        name: string;
    };
}
export interface CommunityMember {
    user: UserSummary;
    role: "owner" | "member";
    joined_at: string;
}
/** What joining or leaving did, in words */
export interface CommunityMembershipMessage {
    message: string;
}
export interface CommunitySummary {
    id: string;
    name: string;
    description: string;
    avatar: string | null;
    members_count: number;
    posts_count: number;
    category: {
        id: string;
        name: string;
    };
}
export interface Conversation {
    id: string;
    is_group: boolean;
    /** The other participants (not the caller) */
    participants: Array<UserSummary>;
    last_message: Message | null;
    /** Messages of others after the caller's read mark */
    unread_count: number;
    /** How far the caller has read */
    last_read_message_id: string | null;
    last_message_at: string | null;
    created_at: string;
    updated_at: string;
}
export interface ConversationRead {
    conversation_id: string;
    user_id: string;
    last_read_message_id: string | null;
    read_at: string | null;
}
/** A general error: `{detail}`, with `code` where the client must act on the reason. */
export interface DetailError {
    detail: string;
    /** A machine-readable reason where one exists ('token_not_valid': sign in again or refresh) */
    code?: string;
}
export interface DigestUnsubscribed {
    email_digest: "off";
}
/** A general error in the `{error}` form, sometimes with more about it. */
export interface ErrorMessage {
    error: string;
}
export interface EventData {
    starts_at: string;
    /** null: no end given */
    ends_at: string | null;
    place_name: string | null;
    address: string | null;
    /** People who may be going at most; null: unlimited */
    capacity: number | null;
    going_count: number;
    interested_count: number;
    /** The caller's answer; null: none (not_going, or anonymous) */
    user_rsvp: "going" | "interested" | null;
}
export interface FeedLocationInfo {
    name: string;
    location_id: string;
}
/** Validation errors: `{field: [message]}` or `{non_field_errors: [message]}`. */
export type FieldErrors = Record<string, Array<string>>;
export type GeneralError = DetailError | ErrorMessage;
export interface GeneralFeed {
    items: Array<Post>;
    has_more: boolean;
    feed_type: "general";
    /** Enhancement paths for the client to call in parallel */
    enhancement_endpoints: Array<string>;
    /** Only for a caller without a location: the feed then shows posts from everywhere */
    location_hint?: {
        message: string;
        action: "update_location";
    };
}
export interface Location {
    id: string;
    name: string;
    created_at: string;
    updated_at: string;
    latitude: number | null;
    longitude: number | null;
    country: string | null;
    state: string | null;
    county: string | null;
    district: string | null;
    city: string | null;
    town: string | null;
    village: string | null;
    hamlet: string | null;
    municipality: string | null;
    suburb: string | null;
    borough: string | null;
    quarter: string | null;
    neighbourhood: string | null;
    road: string | null;
    building: string | null;
    commercial: string | null;
    amenity: string | null;
    center_latitude: number | null;
    center_longitude: number | null;
    estimated_radius: number;
    last_boundary_update: string | null;
    name_suggestions: Record<string, number>;
    total_users: number;
    confidence_score: number;
    needs_verification: boolean;
    is_auto_generated: boolean;
    moderator_approved: boolean;
}
export interface LocationFeed {
    items: Array<Post>;
    has_more: boolean;
    feed_type: "location_specific";
    /** The caller lives in this location */
    can_post: boolean;
    location_info: FeedLocationInfo;
    /** Enhancement paths for the client to call in parallel */
    enhancement_endpoints: Array<string>;
}
export interface LocationListItem {
    id: string;
    name: string;
    created_at: string;
    updated_at: string;
    latitude: number | null;
    longitude: number | null;
    country: string | null;
    state: string | null;
    county: string | null;
    district: string | null;
    city: string | null;
    town: string | null;
    village: string | null;
    hamlet: string | null;
    municipality: string | null;
    suburb: string | null;
    borough: string | null;
    quarter: string | null;
    neighbourhood: string | null;
    road: string | null;
    building: string | null;
    commercial: string | null;
    amenity: string | null;
    center_latitude: number | null;
    center_longitude: number | null;
    estimated_radius: number;
    last_boundary_update: string | null;
    name_suggestions: Record<string, number>;
    total_users: number;
    confidence_score: number;
    needs_verification: boolean;
    is_auto_generated: boolean;
    moderator_approved: boolean;
    is_high_confidence: boolean;
    top_suggestions: Array<NameVotes>;
    post_count: number;
    store_count: number;
}
export interface LostFoundData {
    status: "lost" | "found" | "resolved";
    resolved_at: string | null;
}
export interface Message {
    id: string;
    conversation_id: string;
    /** null once the sender account no longer exists */
    sender: UserSummary | null;
    /** What the sender wrote, as a post's or comment's content */
    content: string;
    created_at: string;
}
export interface ModerationLogEntry {
    id: string;
    action: "auto_hide" | "dismiss" | "hide" | "suspend";
    /** null for auto-hide, or once the account is gone */
    moderator: UserSummary | null;
    /** The case (ModerationReport id) */
    report_id: string | null;
    target_type: "post" | "comment" | "user" | "message" | "store" | "product" | "community";
    target_id: string;
    /** The account the action bore on: the content's owner, the suspended user */
    subject: UserSummary | null;
    note: string | null;
    created_at: string;
}
export interface ModerationReport {
    /** The case: `{id}` of POST /api/admin/reports/{id}/resolve/ */
    id: string;
    target_type: "post" | "comment" | "user" | "message" | "store" | "product" | "community";
    target_id: string;
    status: "open" | "resolved";
    /** The reported thing as its first reporter saw it, in its own read's shape (post, comment, message alone, user summary with bio, store, product, community summary) */
    snapshot: Record<string, unknown>;
    /** A reported post or comment as it reads now, beside the snapshot of the version reported (it may have been edited since); null for other kinds, or once it is gone */
    current: Record<string, unknown> | null;
    /** Whose it is (the subject of suspend); null once that account is gone */
    owner: UserSummary | null;
    /** The thing now: hidden by moderation, a suspended user, or gone (deleted) */
    content_state: "visible" | "hidden" | "suspended" | "gone";
    /** Distinct people who reported it in this case */
    reporters_count: number;
    /** Reports per reason */
    reasons: Record<string, number>;
    /** The most recent reports, newest first (at most 20) */
    reports: Array<{
        id: string;
        reporter: UserSummary;
        reason: "spam" | "harassment" | "hate" | "violence" | "sexual" | "scam" | "other";
        details: string | null;
        created_at: string;
    }>;
    /** When enough established reporters hid it pending review */
    auto_hidden_at: string | null;
    /** When its first report opened the case */
    created_at: string;
    last_reported_at: string;
    resolution: {
        action: "dismiss" | "hide" | "suspend";
        note: string | null;
        moderator: UserSummary | null;
        resolved_at: string;
    } | null;
}
export interface NameSuggester {
    username: string;
    display_name: string;
}
export interface NameVotes {
    name: string;
    votes: number;
}
export interface NeighbourhoodFeed {
    items: Array<Post>;
    has_more: boolean;
    feed_type: "neighbourhood";
    location_info: FeedLocationInfo;
    /** Enhancement paths for the client to call in parallel */
    enhancement_endpoints: Array<string>;
}
export interface Notification {
    id: string;
    /** The recipient id */
    user: string;
    actor: UserSummary | null;
    actor_username: string | null;
    notification_type: string;
    target_id: string | null;
    target_type: string | null;
    message: string;
    is_read: boolean;
    created_at: string;
    updated_at: string;
}
export interface NotificationPreferences {
    push: Record<string, boolean>;
    email_digest: "off" | "daily" | "weekly";
    previews: boolean;
    quiet_hours: QuietHours | null;
}
export interface Order {
    id: string;
    /** The buyer; null once the buyer's account was deleted */
    user: string | null;
    /** null once the product was deleted */
    product: string | null;
    /** null once the store was deleted */
    store: string | null;
    quantity: number;
    /** The price when ordered, two decimals */
    unit_price: string;
    /** unit_price × quantity, two decimals */
    total_price: string;
    status: "pending" | "processing" | "shipped" | "delivered" | "cancelled";
    created_at: string;
    updated_at: string;
}
export interface PlaceSearchHit {
    id: string;
    name: string;
    city: string | null;
    neighbourhood: string | null;
    /** The place's published centre */
    latitude: number | null;
    longitude: number | null;
    total_users: number;
}
export interface Poll {
    id: string;
    question: string;
    allows_multiple_choices: boolean;
    expires_at: string;
    /** Votes cast over all options (a multiple-choice voter counts once per option) */
    total_votes: number;
    user_voted: boolean;
    is_expired: boolean;
    options: Array<{
        id: string;
        option_text: string;
        votes_count: number;
        /** Zero based */
        order: number;
        user_voted: boolean;
        /** Share of all votes of the poll, 0 to 100, one decimal */
        percentage: number;
    }>;
}
export interface Post {
    id: string;
    user: PostAuthor;
    post_type: "text" | "image" | "product_share" | "store_share" | "community_share" | "poll" | "audio" | "event" | "lost_found" | "recommendation" | "alert";
    title: string | null;
    content: string;
    /** Shown in place of the content until the reader taps it (at most 200 characters); null for none */
    content_warning: string | null;
    /** Its hashtags (#word: letters of any script, digits, _; 1 to 50), lower case, in order of first use */
    tags: Array<string>;
    media: Array<PostMedia>;
    location: string | null;
    location_name: string | null;
    community: string | null;
    community_name: string | null;
    shared_product: SharedProduct | null;
    shared_store: SharedStore | null;
    shared_community: CommunitySummary | null;
    poll_data: Poll | null;
    audio_data: {
        id: string;
        audio_file: string;
        duration_seconds: number;
        transcription: string | null;
        /** Amplitudes from 0 to 1 along the recording; not computed today, so null */
        waveform_data: Array<number> | null;
    } | null;
    event_data: EventData | null;
    lost_found_data: LostFoundData | null;
    likes_count: number;
    comments_count: number;
    views_count: number;
    has_liked: boolean;
    has_bookmarked: boolean;
    created_at: string;
    updated_at: string;
    /** When its author last changed its text; null until then (earlier versions: GET /api/feed/posts/{post_id}/history/) */
    edited_at: string | null;
}
export interface PostAuthor {
    id: string;
    username: string;
    display_name: string;
    profile_picture: string | null;
}
export interface PostMedia {
    id: string;
    file: string;
    media_type: string;
    order: number;
    /** What the image shows, for screen readers (at most 1,500 characters); null when the author gave none */
    alt_text: string | null;
    /** Width in pixels, upright, as stored (at most 4096) */
    width: number | null;
    /** Height in pixels */
    height: number | null;
    /** ThumbHash of the image, base64url: decode it to paint a blurred preview at once */
    placeholder: string | null;
    /** WebP, longest side at most 320 px: lists, feeds, avatars */
    thumbnail: string;
    /** WebP, longest side at most 1280 px: a post or product opened on a phone */
    display: string;
}
export interface PostSearchHit {
    id: string;
    user: PostAuthor;
    post_type: "text" | "image" | "product_share" | "store_share" | "community_share" | "poll" | "audio" | "event" | "lost_found" | "recommendation" | "alert";
    title: string | null;
    content: string;
    /** Shown in place of the content until the reader taps it (at most 200 characters); null for none */
    content_warning: string | null;
    /** Its hashtags (#word: letters of any script, digits, _; 1 to 50), lower case, in order of first use */
    tags: Array<string>;
    media: Array<PostMedia>;
    location: string | null;
    location_name: string | null;
    community: string | null;
    community_name: string | null;
    shared_product: SharedProduct | null;
    shared_store: SharedStore | null;
    shared_community: CommunitySummary | null;
    poll_data: Poll | null;
    audio_data: {
        id: string;
        audio_file: string;
        duration_seconds: number;
        transcription: string | null;
        /** Amplitudes from 0 to 1 along the recording; not computed today, so null */
        waveform_data: Array<number> | null;
    } | null;
    event_data: EventData | null;
    lost_found_data: LostFoundData | null;
    likes_count: number;
    comments_count: number;
    views_count: number;
    has_liked: boolean;
    has_bookmarked: boolean;
    created_at: string;
    updated_at: string;
    /** When its author last changed its text; null until then (earlier versions: GET /api/feed/posts/{post_id}/history/) */
    edited_at: string | null;
    /** Plain text around the match, at most 200 characters */
    snippet: string;
    /** [start, end) offsets into `snippet` (UTF-16 code units, as JavaScript strings index) of the words that matched; no markup anywhere */
    highlights: Array<[number, number]>;
}
export interface PostVersion {
    content: string;
    title: string | null;
    content_warning: string | null;
    /** When this version was made by an edit; null for the version first posted */
    edited_at: string | null;
}
export interface Product {
    id: string;
    store: {
        id: string;
        name: string;
        slug: string;
        owner: {
            username: string;
            display_name: string;
        };
        description: string;
        location: {
            id: string;
            name: string;
        } | null;
    };
    name: string;
    description: string;
    category: "electronics" | "apparel" | "home_garden" | "food_beverage" | "health_beauty" | "sports_outdoors" | "toys_games" | "arts_crafts" | "books_music" | "automotive" | "misc";
    price_type: "fixed" | "negotiable" | "variable";
    /** Two decimals, e.g. "12.50"; null when the product has no price */
    price: string | null;
    stock: number;
    images: Array<{
        id: string;
        image: string;
        /** Width in pixels, upright, as stored (at most 4096) */
        width: number | null;
        /** Height in pixels */
        height: number | null;
        /** ThumbHash of the image, base64url: decode it to paint a blurred preview at once */
        placeholder: string | null;
        /** WebP, longest side at most 320 px: lists, feeds, avatars */
        thumbnail: string;
        /** WebP, longest side at most 1280 px: a post or product opened on a phone */
        display: string;
    }>;
    created_at: string;
    updated_at: string;
}
export interface ProfileExport {
    id: string;
    email: string;
    username: string;
    display_name: string;
    is_verified: boolean;
    bio: string;
    profile_picture: string | null;
    website: string;
    relationship_status: string | null;
    banner: string | null;
    location: {
        id: string;
        name: string;
    } | null;
    store: {
        id: string;
        name: string;
        description: string;
    } | null;
    owned_communities: Array<{
        id: string;
        name: string;
        description: string;
    }>;
    created_at: string;
    updated_at: string;
    /** Whether search finds the person by name, and their posts and comments (default true). Only for the user themself and for staff. */
    discoverable?: boolean;
    /** The caller's own point: never shown to anyone else, but theirs to take */
    latitude: string | null;
    longitude: string | null;
    referral_code: string;
    referrer_code: string | null;
    ref_source: string | null;
    ref_medium: string | null;
    ref_campaign: string | null;
}
export interface PushSubscription {
    id: string;
    kind: "webpush" | "fcm" | "apns";
    created_at: string;
    last_success_at: string | null;
}
export interface QuietHours {
    start: string;
    end: string;
    time_zone: string;
}
export interface ReadAll {
    updated: number;
}
export interface Review {
    id: string;
    user: string;
    product: string;
    rating: number;
    comment: string;
    created_at: string;
    updated_at: string;
}
export interface SafetyRelation {
    user: UserSummary;
    created_at: string;
}
export interface SafetyReport {
    id: string;
    target_type: "post" | "comment" | "user" | "message" | "store" | "product" | "community";
    target_id: string;
    reason: "spam" | "harassment" | "hate" | "violence" | "sexual" | "scam" | "other";
    status: "open" | "resolved";
    created_at: string;
}
/** Without `type`: each kind with its count and its best 5 */
export interface SearchAll {
    posts: {
        count: number;
        results: Array<PostSearchHit>;
    };
    comments: {
        count: number;
        results: Array<CommentSearchHit>;
    };
    users: {
        count: number;
        results: Array<UserSummary>;
    };
    stores: {
        count: number;
        results: Array<SharedStore>;
    };
    products: {
        count: number;
        results: Array<SharedProduct>;
    };
    communities: {
        count: number;
        results: Array<CommunitySummary>;
    };
    places: {
        count: number;
        results: Array<PlaceSearchHit>;
    };
    tags: {
        count: number;
        results: Array<TagSearchHit>;
    };
}
export interface Session {
    access_token: string;
    refresh_token: string;
    user: User;
}
export interface SharedProduct {
    id: string;
    name: string;
    /** Two decimals; null for a product without a fixed price */
    price: string | null;
    images: Array<{
        id: string;
        url: string;
    }>;
    store: {
        id: string;
        name: string;
    };
}
export interface SharedStore {
    id: string;
    name: string;
    slug: string;
    description: string;
    logo: string | null;
    location_name: string | null;
    owner: {
        username: string;
        display_name: string;
    };
}
export interface Store {
    id: string;
    name: string;
    owner: {
        username: string;
        display_name: string;
    };
    slug: string;
    description: string;
    is_verified: boolean;
    social_url: string;
    latitude: number | null;
    longitude: number | null;
    location: {
        id: string;
        name: string;
    } | null;
    community: {
        id: string;
        name: string;
    } | null;
    logo: string | null;
    banner: string | null;
    created_at: string;
    updated_at: string;
}
export interface StoresEnhancement {
    type: "stores";
    items: Array<{
        id: string;
        name: string;
        description: string;
        logo: string | null;
        location_name: string | null;
        owner: {
            username: string;
            display_name: string;
        };
    }>;
    inject_at_positions: Array<number>;
    title: string;
}
export interface Sync {
    /** The caller's notifications created or changed, oldest first */
    notifications: Array<Notification>;
    /** Messages of the conversations the caller takes part in, oldest first */
    messages: Array<Message>;
    /** Orders the caller placed or received, created or changed, oldest first */
    orders: Array<Order>;
    /** Posts of the caller's location and communities and of the rooms watched (socket subscriptions, or `locations`/`communities`), oldest first, as pushed (per-viewer fields as for an anonymous viewer) */
    posts: Array<Post>;
    /** Posts, comments and messages the caller could see (by the rules above: its place, communities, watched rooms and posts, conversations) that went away, oldest first; a deleted post stands for its comments */
    deleted: Array<SyncDeletion>;
    /** `since` (or the cursor) is older than the 30 days of deletions kept, so `deleted` may miss some: drop what is cached and load afresh */
    full_refresh: boolean;
    /** Some kind had more than 100 items: call again with `cursor` */
    has_more: boolean;
    /** Opaque: where this answer ended for each kind; pass it back to continue */
    cursor: string;
}
export interface SyncDeletion {
    /** What went away */
    type: "post" | "comment" | "message";
    /** Its id */
    id: string;
    /** When it went away (ISO 8601, UTC) */
    deleted_at: string;
}
export interface TagSearchHit {
    tag: string;
    posts_count: number;
}
export interface TokenPair {
    access_token: string;
    refresh_token: string;
}
export interface TrendingTag {
    tag: string;
    posts_count: number;
    people_count: number;
}
export interface TrendingTags {
    location_id: string;
    results: Array<TrendingTag>;
}
export interface Unavailable {
    detail: string;
    /** A machine-readable reason where one exists ('token_not_valid': sign in again or refresh) */
    code?: string;
    retry_after?: number;
}
export interface UnreadCount {
    count: number;
}
export interface User {
    id: string;
    /** Only for the user themself and for staff; absent for everyone else. */
    email?: string;
    username: string;
    display_name: string;
    is_verified: boolean;
    bio: string;
    profile_picture: string | null;
    website: string;
    relationship_status: string | null;
    banner: string | null;
    location: {
        id: string;
        name: string;
    } | null;
    store: {
        id: string;
        name: string;
        description: string;
    } | null;
    owned_communities: Array<{
        id: string;
        name: string;
        description: string;
    }>;
    created_at: string;
    updated_at: string;
    /** Whether search finds the person by name, and their posts and comments (default true). Only for the user themself and for staff. */
    discoverable?: boolean;
}
export interface UserSummary {
    id: string;
    username: string;
    display_name: string;
    profile_picture: string | null;
}
export interface UsersEnhancement {
    type: "users";
    items: Array<{
        id: string;
        username: string;
        display_name: string;
        profile_picture: string | null;
        bio: string;
    }>;
    inject_at_positions: Array<number>;
    title: string;
}
export interface VapidPublicKey {
    public_key: string;
}
export interface Webhook {
    id: string;
    url: string;
    events: Array<string>;
    /** The store whose events are sent; null: the service's events (staff) */
    store_id: string | null;
    description: string;
    /** false once disabled: by its owner, by a 410 answer, or after 3 days of failing */
    is_active: boolean;
    created_at: string;
}
export interface WebhookDelivery {
    id: string;
    /** The webhook-id header: the same on every attempt and redelivery */
    event_id: string;
    type: string;
    status: "pending" | "succeeded" | "failed";
    attempts: number;
    last_status_code: number | null;
    /** At most 1 KB of the receiver's last answer, or why the last attempt failed */
    last_response: string | null;
    last_attempt_at: string | null;
    next_attempt_at: string | null;
}
export interface WebhookWithSecret {
    id: string;
    url: string;
    events: Array<string>;
    /** The store whose events are sent; null: the service's events (staff) */
    store_id: string | null;
    description: string;
    /** false once disabled: by its owner, by a 410 answer, or after 3 days of failing */
    is_active: boolean;
    created_at: string;
    /** whsec_ + base64 of 24 bytes; shown in this answer only */
    secret: string;
}
/** Every operation: what `call(name, input)` takes and what it resolves with (the success body). */
export interface Operations {
    /** Create an account; answers tokens and the user, and sets the refresh cookie (POST /api/auth/register/) */
    "accounts.register": {
        input: {
            email: string;
            username: string;
            display_name: string;
            password: string;
            bio?: string;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            profile_picture?: Blob;
            location?: string;
            referrer_code?: string;
            ref_source?: string;
            ref_medium?: string;
            ref_campaign?: string;
        };
        answer: Session;
    };
    /** Create an account as an administrator (no per-address budget); answers its tokens and the user, sets no cookie (POST /api/admin/users/) */
    "admin.users_create": {
        input: {
            email: string;
            username: string;
            display_name: string;
            password: string;
            bio?: string;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            profile_picture?: Blob;
            location?: string;
            referrer_code?: string;
            ref_source?: string;
            ref_medium?: string;
            ref_campaign?: string;
        };
        answer: Session;
    };
    /** Log in with a username or an email; answers tokens and the user, and sets the refresh cookie (POST /api/auth/login/) */
    "accounts.login": {
        input: {
            username: string;
            password: string;
        };
        answer: Session;
    };
    /** Exchange a refresh token (cookie or {refresh}) for new tokens; the presented one is blacklisted (POST /api/auth/refresh/) */
    "accounts.refresh": {
        input: {
            refresh?: string;
        };
        answer: TokenPair;
    };
    /** Blacklist the refresh token (cookie or {refresh}) and clear the cookie; with push_subscription_id, that device of the caller gets no more pushes (POST /api/auth/logout/) */
    "accounts.logout": {
        input: {
            refresh?: string;
            push_subscription_id?: string;
        };
        answer: {
            message: string;
        };
    };
    /** Mail a 6-digit reset code, valid for 10 minutes (POST /api/auth/password-reset/request/) */
    "accounts.password_reset_request": {
        input: {
            email: string;
        };
        answer: {
            detail: string;
        };
    };
    /** Set a new password with the mailed code (single use; locked after 5 wrong codes) (POST /api/auth/password-reset/confirm/) */
    "accounts.password_reset_confirm": {
        input: {
            email: string;
            otp: string;
            new_password: string;
        };
        answer: {
            detail: string;
        };
    };
    /** The caller's own profile (GET /api/users/profile/) */
    "users.profile": {
        input: Record<string, never>;
        answer: User;
    };
    /** Update the caller's profile (only the fields sent change) (PUT /api/users/profile/update/) */
    "users.profile_update": {
        input: {
            display_name?: string;
            bio?: string;
            website?: "" | string;
            relationship_status?: "lonely_af" | "forever_alone" | "looking_for_love" | "taken" | "emotionally_unavailable" | "waiting" | "swiping" | "career_married" | null;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            profile_picture?: Blob;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            banner?: Blob;
            discoverable?: boolean;
            location?: {
                country?: string | null;
                state?: string | null;
                city?: string | null;
                latitude?: number;
                longitude?: number;
            };
        };
        answer: User;
    };
    /** Partially update the caller's profile (PATCH /api/users/profile/) */
    "users.profile_patch": {
        input: {
            display_name?: string;
            bio?: string;
            website?: "" | string;
            relationship_status?: "lonely_af" | "forever_alone" | "looking_for_love" | "taken" | "emotionally_unavailable" | "waiting" | "swiping" | "career_married" | null;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            profile_picture?: Blob;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            banner?: Blob;
            discoverable?: boolean;
            location?: {
                country?: string | null;
                state?: string | null;
                city?: string | null;
                latitude?: number;
                longitude?: number;
            };
        };
        answer: User;
    };
    /** A user by username (GET /api/users/{username}) */
    "users.get": {
        input: {
            username: string;
        };
        answer: User;
    };
    /** Set the caller's location from an address (named from its most specific level) (POST /api/users/update-location/) */
    "users.update_location": {
        input: {
            country?: string | null;
            state?: string | null;
            county?: string | null;
            district?: string | null;
            city?: string | null;
            town?: string | null;
            village?: string | null;
            hamlet?: string | null;
            municipality?: string | null;
            suburb?: string | null;
            borough?: string | null;
            quarter?: string | null;
            neighbourhood?: string | null;
            road?: string | null;
            building?: string | null;
            commercial?: string | null;
            amenity?: string | null;
            latitude?: number;
            longitude?: number;
        };
        answer: {
            message: string;
            location: {
                id: string;
                name: string;
            };
        };
    };
    /** Users whose username or display name contains the query (case-insensitive) (GET /api/users/search/) */
    "users.search": {
        input: {
            query?: string;
        };
        answer: Array<UserSummary>;
    };
    /** Users within 100 km of the caller, nearest first (GET /api/users/nearby-users/) */
    "users.nearby": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<User>;
        };
    };
    /** Grant or revoke verification, staff, or deactivate a user (administrators) (PATCH /api/admin/users/{username}/) */
    "admin.users_update": {
        input: {
            username: string;
            is_verified?: boolean;
            is_staff?: boolean;
            is_active?: boolean;
        };
        answer: AdminUser;
    };
    /** The caller's notifications, newest first (GET /api/notifications/) */
    "notifications.list": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Notification>;
        };
    };
    /** Mark a notification read or unread (recipient only) (PATCH /api/notifications/{notification_id}/) */
    "notifications.update": {
        input: {
            notification_id: string;
            is_read: boolean;
        };
        answer: Notification;
    };
    /** Join the location whose boundary contains these coordinates, or create one (POST /api/locations/locations/smart_update/) */
    "locations.smart_update": {
        input: {
            /** degrees, number or numeric string */
            latitude?: unknown;
            /** degrees, number or numeric string */
            longitude?: unknown;
            suggested_name?: string;
            geocoded_data?: {
                address?: Record<string, unknown>;
            } | null;
        };
        answer: {
            location: {
                id: string;
                name: string;
                confidence_score: number;
                estimated_radius: number;
                center_latitude: number | null;
                center_longitude: number | null;
                total_users: number;
                country: string | null;
                state: string | null;
                city: string | null;
                neighbourhood: string | null;
            };
            source: "existing";
            message: string;
            alternative_names: Array<string>;
            /** Present when suggested_name was sent */
            name_suggestion?: {
                message: string;
                vote_weight: number;
                top_suggestions: Array<NameVotes>;
            };
        } | {
            location: {
                id: string;
                name: string;
                confidence_score: number;
                estimated_radius: number;
                center_latitude: number | null;
                center_longitude: number | null;
                total_users: number;
                is_auto_generated: boolean;
            };
            source: "new";
            message: string;
            needs_more_data: boolean;
        };
    };
    /** Suggest a name; the location is renamed when the consensus rule says so (POST /api/locations/locations/{location_id}/suggest_name/) */
    "locations.suggest_name": {
        input: {
            location_id: string;
            name: unknown;
        };
        answer: {
            message: string;
            old_name: string;
            new_name: string;
            confidence: number;
            vote_weight: number;
        } | {
            message: string;
            current_name: string;
            suggested_name: string;
            vote_weight: number;
            top_suggestions: Array<NameVotes>;
        };
    };
    /** Suggestions for a location: grouped by similarity, or one by one with show_individual=true (paginated) (GET /api/locations/locations/{location_id}/name_suggestions/) */
    "locations.name_suggestions": {
        input: {
            location_id: string;
            show_individual?: boolean;
            page?: number;
            page_size?: number;
        };
        answer: {
            location_name: string;
            confidence_score: number;
            total_suggestions: number;
            view_type: "grouped";
            grouped_suggestions: Array<{
                representative_name: string;
                total_weight: number;
                suggestion_count: number;
                is_current_name: boolean;
                suggestions: Array<{
                    id: string;
                    suggested_name: string;
                    user: NameSuggester;
                    vote_weight: number;
                    created_at: string;
                }>;
            }>;
            /** Name to vote weight */
            consensus_data: Record<string, number>;
            /** [name, weight], heaviest first */
            top_voted_names: Array<[string, number]>;
        } | {
            count: number;
            next: string | null;
            previous: string | null;
            results: {
                location_name: string;
                confidence_score: number;
                total_suggestions: number;
                view_type: "individual";
                suggestions: Array<{
                    id: string;
                    suggested_name: string;
                    user: NameSuggester;
                    vote_weight: number;
                    created_at: string;
                    is_current_name: boolean;
                    /** Percent */
                    similarity_to_current: number;
                }>;
            };
        };
    };
    /** Locations within max_distance km (default 5), nearest first (GET /api/locations/locations/nearby/) */
    "locations.nearby": {
        input: {
            /** degrees, number or numeric string */
            latitude?: unknown;
            /** degrees, number or numeric string */
            longitude?: unknown;
            max_distance?: number;
        };
        answer: {
            count: number;
            locations: Array<{
                id: string;
                name: string;
                confidence_score: number;
                estimated_radius: number;
                distance_km: number;
                total_users: number;
            }>;
        };
    };
    /** Fuzzy name search (pg_trgm); nearest first when coordinates are given (GET /api/locations/locations/search/) */
    "locations.search": {
        input: {
            q?: string;
            /** degrees, number or numeric string */
            latitude?: unknown;
            /** degrees, number or numeric string */
            longitude?: unknown;
        };
        answer: {
            query: string;
            count: number;
            locations: Array<{
                id: string;
                name: string;
                confidence_score: number;
                total_users: number;
                city: string | null;
                state: string | null;
            }>;
        };
    };
    /** Locations, filtered and ordered (paginated) (GET /api/locations/locations/) */
    "locations.list": {
        input: {
            country?: string;
            state?: string;
            city?: string;
            neighbourhood?: string;
            search?: string;
            min_confidence?: number;
            needs_verification?: boolean;
            order_by_confidence?: boolean;
            order_by_posts?: boolean;
            order_by_stores?: boolean;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<LocationListItem>;
        };
    };
    /** One location (GET /api/locations/locations/{location_id}/) */
    "locations.detail": {
        input: {
            location_id: string;
        };
        answer: LocationListItem;
    };
    /** Flag a location for moderator review (POST /api/locations/locations/{location_id}/flag_for_review/) */
    "locations.flag_for_review": {
        input: {
            location_id: string;
            reason?: string;
        };
        answer: {
            message: string;
            location_id: string;
            needs_verification: boolean;
        };
    };
    /** Location statistics (staff) (GET /api/locations/locations/analytics/) */
    "locations.analytics": {
        input: Record<string, never>;
        answer: {
            summary: {
                total_locations: number;
                low_confidence_count: number;
                needs_verification_count: number;
                auto_generated_count: number;
                recent_suggestions_count: number;
            };
            top_locations: Array<{
                id: string;
                name: string;
                total_users: number;
                confidence_score: number;
            }>;
        };
    };
    /** Name suggestions, by location and/or the caller's own (paginated) (GET /api/locations/suggestions/) */
    "locations.suggestions": {
        input: {
            location_id?: string;
            my_suggestions?: boolean;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<{
                id: string;
                suggested_name: string;
                location_name: string;
                user: NameSuggester;
                vote_weight: number;
                is_current_name: boolean;
                /** Percent */
                similarity_to_current: number;
                created_at: string;
            }>;
        };
    };
    /** Recalculate a location's boundary now (administrators) (POST /api/locations/locations/{location_id}/update_boundary/) */
    "locations.update_boundary": {
        input: {
            location_id: string;
        };
        answer: {
            message: string;
            members_with_coordinates: number;
            /** The boundary before */
            previous: {
                center_latitude: number | null;
                center_longitude: number | null;
                estimated_radius: number;
            };
            location: Location;
        };
    };
    /** Locations (1.0.0 path) (GET /api/locations/) */
    "locations.legacy_list": {
        input: {
            country?: string;
            state?: string;
            city?: string;
            neighbourhood?: string;
            search?: string;
            min_confidence?: number;
            needs_verification?: boolean;
            order_by_confidence?: boolean;
            order_by_posts?: boolean;
            order_by_stores?: boolean;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<LocationListItem>;
        };
    };
    /** One location (1.0.0 path) (GET /api/locations/{location_id}/) */
    "locations.legacy_detail": {
        input: {
            location_id: string;
        };
        answer: LocationListItem;
    };
    /** Approve a location or set its needs_verification flag (administrators; moderation-logged) (PATCH /api/admin/locations/{location_id}/) */
    "admin.locations_update": {
        input: {
            location_id: string;
            moderator_approved?: boolean;
            needs_verification?: boolean;
        };
        answer: Location;
    };
    /** Create a post of any type (images in the multipart field `media`, audio in `audio_file`) (POST /api/feed/posts/) */
    "posts.create": {
        input: {
            post_type: "text" | "image" | "product_share" | "store_share" | "community_share" | "poll" | "audio" | "event" | "lost_found" | "recommendation" | "alert";
            content?: string;
            title?: string;
            content_warning?: string | null;
            media_alt_texts?: Array<string | null>;
            community_id?: string;
            shared_product_id?: string;
            shared_store_id?: string;
            shared_community_id?: string;
            poll_question?: string;
            poll_options?: Array<string>;
            poll_allows_multiple?: boolean;
            poll_expires_at?: unknown;
            /** An audio file: MP3, M4A/AAC, OGG, WAV or WebM by its bytes, at most 25 MB; identifying tags removed (see Media in the API description) */
            audio_file?: Blob;
            media?: Blob | Blob[];
            event_starts_at?: unknown;
            event_ends_at?: unknown;
            event_place_name?: string;
            event_address?: string;
            event_capacity?: number;
            lost_found_status?: "lost" | "found";
            recommended_store_id?: string;
        };
        answer: Post;
    };
    /** One post, with has_liked, has_bookmarked and user_voted for the caller (GET /api/feed/posts/{post_id}/) */
    "posts.get": {
        input: {
            post_id: string;
        };
        answer: Post;
    };
    /** Delete a post (author only) (DELETE /api/feed/posts/{post_id}/) */
    "posts.delete": {
        input: {
            post_id: string;
        };
        answer: null;
    };
    /** Edit a post's text, content warning or alt texts (author only); the version replaced is kept in its history (PATCH /api/feed/posts/{post_id}/) */
    "posts.edit": {
        input: {
            post_id: string;
            content?: string;
            title?: string | null;
            content_warning?: string | null;
            media_alt_texts?: Array<string | null>;
        };
        answer: Post;
    };
    /** Earlier versions of a post, newest first, for whoever may read it (GET /api/feed/posts/{post_id}/history/) */
    "posts.history": {
        input: {
            post_id: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<PostVersion>;
        };
    };
    /** Toggle the caller’s like; answers the new state and count (POST /api/feed/posts/{post_id}/like/) */
    "posts.like": {
        input: {
            post_id: string;
        };
        answer: {
            message: string;
            liked: boolean;
            likes_count: number;
        };
    };
    /** Toggle the caller’s bookmark; answers the new state and count (POST /api/feed/posts/{post_id}/bookmark/) */
    "posts.bookmark": {
        input: {
            post_id: string;
        };
        answer: {
            message: string;
            bookmarked: boolean;
            bookmarks_count: number;
        };
    };
    /** Count a view, at most once per viewer and post in 30 minutes (POST /api/feed/posts/{post_id}/track_view/) */
    "posts.track_view": {
        input: {
            post_id: string;
            device_type?: string;
            referrer_type?: string;
        };
        answer: {
            message: string;
            view_recorded: true;
            views_count: number;
        } | {
            message: string;
            view_recorded: false;
            views_count: number;
            cooldown_remaining_seconds: number;
        };
    };
    /** Vote: {option_ids} (multiple choice) or {option_id} (single choice; replaces an earlier vote) (POST /api/feed/posts/{post_id}/vote_poll/) */
    "posts.vote_poll": {
        input: {
            post_id: string;
            option_id?: string;
            option_ids?: Array<string>;
        };
        answer: {
            message: string;
            voted_options: Array<string>;
            poll_data: Poll;
        };
    };
    /** Posts the caller liked, most recent like first (GET /api/feed/posts/liked/) */
    "posts.liked": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Post>;
        };
    };
    /** Posts the caller bookmarked, most recent bookmark first (GET /api/feed/posts/bookmarked/) */
    "posts.bookmarked": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Post>;
        };
    };
    /** The 20 locations with the most posts, counted every minute (GET /api/feed/posts/popular_locations/) */
    "posts.popular_locations": {
        input: Record<string, never>;
        answer: {
            count: number;
            locations: Array<{
                id: string;
                name: string;
                post_count: number;
                country: string | null;
                state: string | null;
                city: string | null;
                neighbourhood: string | null;
            }>;
        };
    };
    /** The caller's own viewing: counted views, distinct posts, repeats, places, views per day (GET /api/feed/posts/user_analytics/) */
    "posts.user_analytics": {
        input: Record<string, never>;
        answer: {
            total_views: number;
            unique_posts_viewed: number;
            repeat_view_ratio: number;
            popular_locations: Array<{
                post__location__name: string;
                view_count: number;
            }>;
            avg_views_per_day: number;
        };
    };
    /** Compatibility: a text post in the caller’s location (POST /api/posts/) */
    "posts.create_simple": {
        input: {
            content: string;
            location_id?: string;
        };
        answer: Post;
    };
    /** Compatibility: a location’s posts, newest first (GET /api/posts/by-location/) */
    "posts.by_location": {
        input: {
            location_id: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            location_name: string;
            total_posts: number;
            posts: Array<Post>;
        };
    };
    /** Compatibility: toggle the caller’s like of a post (POST /api/posts/{post_id}/like/) */
    "posts.like_simple": {
        input: {
            post_id: string;
        };
        answer: {
            message: string;
            liked: boolean;
            likes_count: number;
        };
    };
    /** Answer an event: going, interested or not_going (which removes the answer); going to a full event is 400 (POST /api/feed/posts/{post_id}/rsvp/) */
    "posts.rsvp": {
        input: {
            post_id: string;
            status: "going" | "interested" | "not_going";
        };
        answer: {
            message: string;
            status: "going" | "interested" | "not_going";
            event_data: EventData;
        };
    };
    /** An event post as iCalendar (RFC 5545, text/calendar; over the socket the same text as the body) (GET /api/feed/posts/{post_id}/event.ics) */
    "posts.event_ics": {
        input: {
            post_id: string;
        };
        answer: string;
    };
    /** A place's events of the next 90 days as an iCalendar feed (RFC 5545, text/calendar), soonest first, at most 500 (GET /api/feed/events.ics) */
    "posts.events_ics": {
        input: {
            location_id: string;
        };
        answer: string;
    };
    /** Resolve a lost and found post (its author only); it then drops out of the first page of feeds (POST /api/feed/posts/{post_id}/resolve/) */
    "posts.resolve": {
        input: {
            post_id: string;
        };
        answer: Post;
    };
    /** Neighbours' recommendation posts naming this store, newest first (GET /api/stores/stores/{store_id}/recommendations/) */
    "stores.recommendations": {
        input: {
            store_id: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Post>;
        };
    };
    /** A post's top-level comments, oldest first (GET /api/posts/posts/{post_id}/comments/) */
    "comments.list": {
        input: {
            post_id: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Comment>;
        };
    };
    /** A comment's direct replies, oldest first (GET /api/posts/comments/replies/) */
    "comments.replies": {
        input: {
            parent_id: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Comment>;
        };
    };
    /** Comment on a post, or reply to a comment of it (`parent`) (POST /api/posts/comments/) */
    "comments.create": {
        input: {
            post: string;
            content: string;
            parent?: string | null;
        };
        answer: Comment;
    };
    /** Delete a comment and its replies (author only) (DELETE /api/posts/comments/{comment_id}/) */
    "comments.delete": {
        input: {
            comment_id: string;
        };
        answer: null;
    };
    /** Edit a comment's content (author only); the version replaced is kept in its history (PATCH /api/posts/comments/{comment_id}/) */
    "comments.edit": {
        input: {
            comment_id: string;
            content: string;
        };
        answer: Comment;
    };
    /** Earlier versions of a comment, newest first, for whoever may read it (GET /api/posts/comments/{comment_id}/history/) */
    "comments.history": {
        input: {
            comment_id: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<CommentVersion>;
        };
    };
    /** Toggle the caller’s like of a comment (POST /api/posts/comments/{comment_id}/like/) */
    "comments.like": {
        input: {
            comment_id: string;
        };
        answer: {
            message: string;
            liked: boolean;
            likes_count: number;
        };
    };
    /** Toggle the caller’s bookmark of a comment (POST /api/posts/comments/{comment_id}/bookmark/) */
    "comments.bookmark": {
        input: {
            comment_id: string;
        };
        answer: {
            message: string;
            bookmarked: boolean;
            bookmarks_count: number;
        };
    };
    /** Compatibility: comment on a post (POST /api/posts/{post_id}/comment/) */
    "comments.create_simple": {
        input: {
            post_id: string;
            content: string;
        };
        answer: Comment;
    };
    /** Communities, most members first; filter by category, location or a search text (GET /api/communities/communities/) */
    "communities.list": {
        input: {
            page?: number;
            page_size?: number;
            category?: string;
            location?: string;
            search?: string;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Community>;
        };
    };
    /** Create a community; the creator becomes its owner and first member (POST /api/communities/communities/) */
    "communities.create": {
        input: {
            name: string;
            description?: string;
            category: string;
            location?: string;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            avatar?: Blob;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            banner?: Blob;
        };
        answer: Community;
    };
    /** One community (GET /api/communities/communities/{community_id}/) */
    "communities.get": {
        input: {
            community_id: string;
        };
        answer: Community;
    };
    /** Change a community (owner only; only the fields sent change) (PATCH /api/communities/communities/{community_id}/) */
    "communities.update": {
        input: {
            community_id: string;
            name?: string;
            description?: string;
            category?: string;
            location?: string | null;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            avatar?: Blob;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            banner?: Blob;
        };
        answer: Community;
    };
    /** Delete a community (owner only) (DELETE /api/communities/communities/{community_id}/) */
    "communities.delete": {
        input: {
            community_id: string;
        };
        answer: null;
    };
    /** Join a community (joining twice is not an error) (POST /api/communities/communities/{community_id}/join/) */
    "communities.join": {
        input: {
            community_id: string;
        };
        answer: CommunityMembershipMessage;
    };
    /** Leave a community (its owner cannot) (POST /api/communities/communities/{community_id}/leave/) */
    "communities.leave": {
        input: {
            community_id: string;
        };
        answer: CommunityMembershipMessage;
    };
    /** A community's members, earliest first (GET /api/communities/communities/{community_id}/members/) */
    "communities.members": {
        input: {
            community_id: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<CommunityMember>;
        };
    };
    /** Community categories with their groups (GET /api/communities/categories/) */
    "communities.categories": {
        input: Record<string, never>;
        answer: Array<CommunityCategory>;
    };
    /** Open a conversation with other users (200 with the existing 1:1 conversation of a pair, else 201) (POST /api/messages/conversations/) */
    "messages.open_conversation": {
        input: {
            participant_ids: Array<string>;
        };
        answer: Conversation;
    };
    /** The caller's conversations, newest activity first, with the other participants, the last message and the unread count (GET /api/messages/conversations/) */
    "messages.conversations": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Conversation>;
        };
    };
    /** One conversation (participants only; 404 for anyone else) (GET /api/messages/conversations/{conversation_id}/) */
    "messages.conversation": {
        input: {
            conversation_id: string;
        };
        answer: Conversation;
    };
    /** Messages of a conversation, newest first (page_size default 30, max 100). `before=<message id>` lists only older messages: a cursor that stays put while new messages arrive; the page links carry it. (GET /api/messages/conversations/{conversation_id}/messages/) */
    "messages.list": {
        input: {
            conversation_id: string;
            page?: number;
            page_size?: number;
            before?: string;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Message>;
        };
    };
    /** Send a message (1 to 5,000 characters); every participant hears message:created (POST /api/messages/conversations/{conversation_id}/messages/) */
    "messages.send": {
        input: {
            conversation_id: string;
            content: string;
        };
        answer: Message;
    };
    /** Mark the conversation read up to a message (default: the latest); the other participants hear conversation:read (POST /api/messages/conversations/{conversation_id}/read/) */
    "messages.read": {
        input: {
            conversation_id: string;
            message_id?: string;
        };
        answer: ConversationRead;
    };
    /** Stores, newest first; filters location, slug, search (name and description) (GET /api/stores/stores/) */
    "stores.list": {
        input: {
            location?: string | null;
            slug?: string;
            search?: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Store>;
        };
    };
    /** Open a store (location and coordinates default to the owner's location) (POST /api/stores/stores/) */
    "stores.create": {
        input: {
            name: string;
            slug: string;
            description?: string;
            social_url?: "" | string;
            location?: string | null;
            community?: string | null;
            latitude?: number;
            longitude?: number;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            logo?: Blob;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            banner?: Blob;
        };
        answer: Store;
    };
    /** A store (GET /api/stores/stores/{store_id}/) */
    "stores.get": {
        input: {
            store_id: string;
        };
        answer: Store;
    };
    /** Update a store (owner; only the fields sent change; is_verified is ignored) (PUT /api/stores/stores/{store_id}/) */
    "stores.update": {
        input: {
            store_id: string;
            name?: string;
            slug?: string;
            description?: string;
            social_url?: "" | string;
            location?: string | null;
            community?: string | null;
            latitude?: number;
            longitude?: number;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            logo?: Blob;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            banner?: Blob;
        };
        answer: Store;
    };
    /** Partially update a store (owner; is_verified is ignored) (PATCH /api/stores/stores/{store_id}/) */
    "stores.patch": {
        input: {
            store_id: string;
            name?: string;
            slug?: string;
            description?: string;
            social_url?: "" | string;
            location?: string | null;
            community?: string | null;
            latitude?: number;
            longitude?: number;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            logo?: Blob;
            /** An image file: JPEG, PNG, WebP or GIF by its bytes, at most 10 MB, 48 megapixels and 16,384 pixels a side; decoded and written anew (see Media in the API description) */
            banner?: Blob;
        };
        answer: Store;
    };
    /** Delete a store with its products and their images (owner) (DELETE /api/stores/stores/{store_id}/) */
    "stores.delete": {
        input: {
            store_id: string;
        };
        answer: null;
    };
    /** The caller's stores (an array, not paginated) (GET /api/stores/stores/my_store/) */
    "stores.my_store": {
        input: Record<string, never>;
        answer: Array<Store>;
    };
    /** Move the store to the owner's current location (owner) (PATCH /api/stores/stores/{store_id}/sync_location/) */
    "stores.sync_location": {
        input: {
            store_id: string;
        };
        answer: Store;
    };
    /** Verify or unverify a store (administrators) (PATCH /api/admin/stores/{store_id}/) */
    "admin.stores_update": {
        input: {
            store_id: string;
            is_verified?: boolean;
        };
        answer: Store;
    };
    /** Products, newest first; filters category, price (exact), store, search (name and description) (GET /api/stores/products/) */
    "products.list": {
        input: {
            category?: "electronics" | "apparel" | "home_garden" | "food_beverage" | "health_beauty" | "sports_outdoors" | "toys_games" | "arts_crafts" | "books_music" | "automotive" | "misc";
            price?: string | null;
            store?: string | null;
            search?: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Product>;
        };
    };
    /** Products of stores in the target location's most specific level, widening level by level while nothing is found (GET /api/stores/products/by-location/) */
    "products.by_location": {
        input: {
            location_id: string;
            search?: string;
            categories?: Array<"electronics" | "apparel" | "home_garden" | "food_beverage" | "health_beauty" | "sports_outdoors" | "toys_games" | "arts_crafts" | "books_music" | "automotive" | "misc">;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            /** The matched level's value */
            location_name: string;
            /** The hierarchy level that matched */
            level: string;
            products: Array<Product>;
        } | {
            location_name: null;
            products: Array<Product>;
        };
    };
    /** A product (GET /api/stores/products/{product_id}/) */
    "products.get": {
        input: {
            product_id: string;
        };
        answer: Product;
    };
    /** Add a product to one's own store (multipart; uploaded_images are files) (POST /api/stores/products/) */
    "products.create": {
        input: {
            store_id: string;
            name: string;
            category: "electronics" | "apparel" | "home_garden" | "food_beverage" | "health_beauty" | "sports_outdoors" | "toys_games" | "arts_crafts" | "books_music" | "automotive" | "misc";
            stock: number;
            description?: string;
            price_type?: "fixed" | "negotiable" | "variable";
            price?: string | null;
            uploaded_images?: Blob | Blob[];
        };
        answer: Product;
    };
    /** Update a product (owner; only the fields sent change; images_to_delete removes images) (PUT /api/stores/products/{product_id}/) */
    "products.update": {
        input: {
            product_id: string;
            name?: string;
            category?: "electronics" | "apparel" | "home_garden" | "food_beverage" | "health_beauty" | "sports_outdoors" | "toys_games" | "arts_crafts" | "books_music" | "automotive" | "misc";
            stock?: number;
            description?: string;
            price_type?: "fixed" | "negotiable" | "variable";
            price?: string | null;
            uploaded_images?: Blob | Blob[];
            images_to_delete?: Array<string>;
        };
        answer: Product;
    };
    /** Partially update a product (owner) (PATCH /api/stores/products/{product_id}/) */
    "products.patch": {
        input: {
            product_id: string;
            name?: string;
            category?: "electronics" | "apparel" | "home_garden" | "food_beverage" | "health_beauty" | "sports_outdoors" | "toys_games" | "arts_crafts" | "books_music" | "automotive" | "misc";
            stock?: number;
            description?: string;
            price_type?: "fixed" | "negotiable" | "variable";
            price?: string | null;
            uploaded_images?: Blob | Blob[];
            images_to_delete?: Array<string>;
        };
        answer: Product;
    };
    /** Delete a product and its image files (owner) (DELETE /api/stores/products/{product_id}/) */
    "products.delete": {
        input: {
            product_id: string;
        };
        answer: null;
    };
    /** The caller's orders, newest first; role=seller lists the orders its stores received (GET /api/stores/orders/) */
    "orders.list": {
        input: {
            role?: "buyer" | "seller";
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Order>;
        };
    };
    /** Order a product: total_price computed, stock taken in the same transaction; the seller hears order:created. 1 to 99 units per order, and the buyer's pending orders hold at most ORDER_MAX_PENDING_UNITS (default 20) units of one product (beyond: 400 on quantity) (POST /api/stores/orders/) */
    "orders.create": {
        input: {
            product: string;
            /** 1 to 99 units; with the caller's pending orders of this product at most ORDER_MAX_PENDING_UNITS (default 20) */
            quantity: number;
        };
        answer: Order;
    };
    /** Change the status: the seller moves it forward or cancels it until it is shipped; the buyer may only cancel, while it is pending (other statuses 403, a later cancellation 400). A cancellation returns the units to stock; a cancelled order changes no more (400). The other party hears order:updated and is notified (PATCH /api/stores/orders/{order_id}/) */
    "orders.update": {
        input: {
            order_id: string;
            /** pending → processing → shipped → delivered (forward only, seller), or cancelled (buyer while pending, seller until shipped); the current status again is a 200 no-op */
            status: "pending" | "processing" | "shipped" | "delivered" | "cancelled";
        };
        answer: Order;
    };
    /** Reviews, newest first; filter product (GET /api/stores/reviews/) */
    "reviews.list": {
        input: {
            product?: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Review>;
        };
    };
    /** Review a product (rating 1 to 5; one review per user and product) (POST /api/stores/reviews/) */
    "reviews.create": {
        input: {
            product: string;
            rating: number;
            comment?: string;
        };
        answer: Review;
    };
    /** Change a review (author only) (PATCH /api/stores/reviews/{review_id}/) */
    "reviews.update": {
        input: {
            review_id: string;
            rating?: number;
            comment?: string;
        };
        answer: Review;
    };
    /** Delete a review (author only) (DELETE /api/stores/reviews/{review_id}/) */
    "reviews.delete": {
        input: {
            review_id: string;
        };
        answer: null;
    };
    /** Posts of the caller's place and the places around it, ranked (page size 15 by default, at most 50) (GET /api/feed/hybrid/neighbourhood/) */
    "feeds.neighbourhood": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: NeighbourhoodFeed;
    };
    /** Posts of the caller's city or area first, then of everywhere, ranked (GET /api/feed/hybrid/general/) */
    "feeds.general": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: GeneralFeed;
    };
    /** Posts of one location, ranked; can_post tells whether the caller lives there (GET /api/feed/hybrid/location/{location_id}/) */
    "feeds.location": {
        input: {
            location_id: string;
            page?: number;
            page_size?: number;
        };
        answer: LocationFeed;
    };
    /** People living near the caller (or near location_id), to place between feed items (GET /api/feed/enhancements/users/) */
    "feeds.enhancements.users": {
        input: {
            location_id?: string;
        };
        answer: UsersEnhancement;
    };
    /** Stores near the caller (or near location_id) that the caller does not own, to place between feed items (GET /api/feed/enhancements/stores/) */
    "feeds.enhancements.stores": {
        input: {
            location_id?: string;
        };
        answer: StoresEnhancement;
    };
    /** Communities near the caller (or near location_id) that the caller is not in, to place between feed items (GET /api/feed/enhancements/communities/) */
    "feeds.enhancements.communities": {
        input: {
            location_id?: string;
        };
        answer: CommunitiesEnhancement;
    };
    /** Catch up after a gap: what changed after `since` (or after `cursor`), oldest first, at most 100 of each kind (GET /api/realtime/sync/) */
    "realtime.sync": {
        input: {
            since?: string;
            cursor?: string;
            /** Location rooms watched besides the caller's own (REST has no subscriptions); each checked as subscribe checks it */
            locations?: Array<unknown>;
            /** Community rooms watched besides the caller's own communities; each checked as subscribe checks it */
            communities?: Array<unknown>;
        };
        answer: Sync;
    };
    /** Block a user (201; again: 200 with the existing entry) (POST /api/safety/blocks/) */
    "safety.blocks_create": {
        input: {
            user_id: string;
        };
        answer: SafetyRelation;
    };
    /** Unblock a user (204, also when there was nothing to undo) (DELETE /api/safety/blocks/{user_id}/) */
    "safety.blocks_delete": {
        input: {
            user_id: string;
        };
        answer: null;
    };
    /** The users the caller blocked, newest first (GET /api/safety/blocks/) */
    "safety.blocks_list": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<SafetyRelation>;
        };
    };
    /** Mute a user (201; again: 200 with the existing entry) (POST /api/safety/mutes/) */
    "safety.mutes_create": {
        input: {
            user_id: string;
        };
        answer: SafetyRelation;
    };
    /** Unmute a user (204, also when there was nothing to undo) (DELETE /api/safety/mutes/{user_id}/) */
    "safety.mutes_delete": {
        input: {
            user_id: string;
        };
        answer: null;
    };
    /** The users the caller muted, newest first (GET /api/safety/mutes/) */
    "safety.mutes_list": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<SafetyRelation>;
        };
    };
    /** Report a post, comment, user, message, store, product or community the caller can see (201; the same thing again: 200 with the open report) (POST /api/safety/reports/) */
    "safety.reports_create": {
        input: {
            target_type: "post" | "comment" | "user" | "message" | "store" | "product" | "community";
            target_id: string;
            reason: "spam" | "harassment" | "hate" | "violence" | "sexual" | "scam" | "other";
            details?: string | null;
        };
        answer: SafetyReport;
    };
    /** The caller's own reports, newest first, each with its status (GET /api/safety/reports/) */
    "safety.reports_list": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<SafetyReport>;
        };
    };
    /** The moderation queue: one entry per reported thing with its snapshot and distinct reporters; open ones oldest first (default), resolved ones newest first (GET /api/admin/reports/) */
    "admin.reports_list": {
        input: {
            status?: "open" | "resolved";
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<ModerationReport>;
        };
    };
    /** Resolve a report and every report of the same thing: dismiss (restores what auto-hide hid), hide (posts and comments), or suspend the owner (and hide the thing) (POST /api/admin/reports/{id}/resolve/) */
    "admin.reports_resolve": {
        input: {
            id: string;
            action: "dismiss" | "hide" | "suspend";
            note?: string | null;
        };
        answer: ModerationReport;
    };
    /** Every moderation action, newest first: who, what, which report and thing, about whom, the note, when (GET /api/admin/moderation-log/) */
    "admin.moderation_log": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<ModerationLogEntry>;
        };
    };
    /** Everything the caller wrote or owns, as one JSON document (each section at most 1000 items; see next_cursors) (GET /api/users/profile/export/) */
    "users.profile_export": {
        input: Record<string, never>;
        answer: AccountExport;
    };
    /** The next page of one section of the caller's export, after the cursor the export (or the previous page) gave (GET /api/users/profile/export/{section}/) */
    "users.profile_export_section": {
        input: {
            section: "posts" | "comments" | "post_versions" | "comment_versions" | "messages" | "stores" | "products" | "orders_as_buyer" | "orders_as_seller" | "reviews" | "communities_owned" | "community_memberships" | "post_likes" | "post_bookmarks" | "comment_likes" | "comment_bookmarks" | "poll_votes" | "event_rsvps" | "location_name_suggestions" | "blocks" | "mutes" | "reports" | "webhooks" | "push_subscriptions";
            cursor?: string;
        };
        answer: AccountExportPage;
    };
    /** Delete the caller's account at once (password required); every session ends, the username and email are free again (DELETE /api/users/profile/) */
    "users.profile_delete": {
        input: {
            password: string;
        };
        answer: null;
    };
    /** Subscribe a URL to a store's events (its owner) or, without store_id, to the service's (staff); the secret is answered this once (POST /api/webhooks/) */
    "webhooks.create": {
        input: {
            url: string;
            events: Array<string>;
            store_id?: string | null;
            description?: string;
        };
        answer: WebhookWithSecret;
    };
    /** The caller's webhooks, newest first (GET /api/webhooks/) */
    "webhooks.list": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Webhook>;
        };
    };
    /** One of the caller's webhooks (never its secret) (GET /api/webhooks/{webhook_id}/) */
    "webhooks.read": {
        input: {
            webhook_id: string;
        };
        answer: Webhook;
    };
    /** Change the URL, events, description, or switch it off and on (on again: its 3 days of failing start afresh) (PATCH /api/webhooks/{webhook_id}/) */
    "webhooks.update": {
        input: {
            webhook_id: string;
            url?: string;
            events?: Array<string>;
            description?: string;
            is_active?: boolean;
        };
        answer: Webhook;
    };
    /** Delete a webhook and its deliveries (DELETE /api/webhooks/{webhook_id}/) */
    "webhooks.delete": {
        input: {
            webhook_id: string;
        };
        answer: null;
    };
    /** A new secret, answered this once; the old one keeps signing alongside it for 24 h (POST /api/webhooks/{webhook_id}/rotate-secret/) */
    "webhooks.rotate_secret": {
        input: {
            webhook_id: string;
        };
        answer: WebhookWithSecret;
    };
    /** Send a webhook.test event (even to a disabled webhook); answers its delivery, pending (POST /api/webhooks/{webhook_id}/test/) */
    "webhooks.test": {
        input: {
            webhook_id: string;
        };
        answer: WebhookDelivery;
    };
    /** A webhook's deliveries, newest first (GET /api/webhooks/{webhook_id}/deliveries/) */
    "webhooks.deliveries": {
        input: {
            webhook_id: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<WebhookDelivery>;
        };
    };
    /** Send a delivery again, with the same webhook-id; its retries start over (POST /api/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver/) */
    "webhooks.redeliver": {
        input: {
            webhook_id: string;
            delivery_id: string;
        };
        answer: WebhookDelivery;
    };
    /** Search posts, comments, people, stores, products, communities, places and tags; all kinds (best 5 each) or one `type`, paginated (posts and comments: the newest 200 matches are ranked and counted) (GET /api/search/) */
    "search.query": {
        input: {
            q: string;
            type?: "posts" | "comments" | "users" | "stores" | "products" | "communities" | "places" | "tags";
            location_id?: string;
            latitude?: number;
            longitude?: number;
            page?: number;
            page_size?: number;
        };
        answer: SearchAll | {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<PostSearchHit>;
        } | {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<CommentSearchHit>;
        } | {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<UserSummary>;
        } | {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<SharedStore>;
        } | {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<SharedProduct>;
        } | {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<CommunitySummary>;
        } | {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<PlaceSearchHit>;
        } | {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<TagSearchHit>;
        };
    };
    /** The hashtags of the last 24 hours near a place (it and its neighbours), by how many people used them; at most 10 (GET /api/search/trending-tags/) */
    "search.trending_tags": {
        input: {
            location_id: string;
        };
        answer: TrendingTags;
    };
    /** Posts carrying a hashtag, nearest place first (to location_id, else the caller’s place), then newest (GET /api/feed/tags/{tag}/) */
    "feeds.tag": {
        input: {
            tag: string;
            location_id?: string;
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<Post>;
        };
    };
    /** Register a device for pushes: a browser's PushSubscription (webpush), an FCM token or an APNs token; the same one again answers 200 and moves to the caller (POST /api/push/subscriptions/) */
    "push.subscribe": {
        input: {
            kind: "webpush" | "fcm" | "apns";
            endpoint?: string;
            keys?: {
                p256dh: string;
                auth: string;
            };
            expirationTime?: number | null;
            token?: string;
            environment?: "production" | "sandbox";
            locale?: string | null;
        };
        answer: PushSubscription;
    };
    /** The caller's devices, newest first (never their endpoints, keys or tokens) (GET /api/push/subscriptions/) */
    "push.list": {
        input: {
            page?: number;
            page_size?: number;
        };
        answer: {
            count: number;
            next: string | null;
            previous: string | null;
            results: Array<PushSubscription>;
        };
    };
    /** Remove one of the caller's devices: it gets no more pushes (DELETE /api/push/subscriptions/{subscription_id}/) */
    "push.unsubscribe": {
        input: {
            subscription_id: string;
        };
        answer: null;
    };
    /** The VAPID public key (base64url) a browser passes to pushManager.subscribe as applicationServerKey (GET /api/push/vapid-public-key/) */
    "push.vapid_public_key": {
        input: Record<string, never>;
        answer: VapidPublicKey;
    };
    /** The caller's notification preferences: pushed types, email digest, previews, quiet hours (GET /api/notifications/preferences/) */
    "notifications.preferences": {
        input: Record<string, never>;
        answer: NotificationPreferences;
    };
    /** Change the preferences: fields left out stay as they are; `push` changes only the types it names; unknown types or time zones are 400 (PUT /api/notifications/preferences/) */
    "notifications.update_preferences": {
        input: {
            push?: Record<string, boolean>;
            email_digest?: "off" | "daily" | "weekly";
            previews?: boolean;
            quiet_hours?: {
                start: string;
                end: string;
                time_zone: string;
            } | null;
        };
        answer: NotificationPreferences;
    };
    /** The caller's unread notifications (the badge) (GET /api/notifications/unread-count/) */
    "notifications.unread_count": {
        input: Record<string, never>;
        answer: UnreadCount;
    };
    /** Mark every notification of the caller read; notification:read_all {read_at} goes to all the caller's sockets (POST /api/notifications/read-all/) */
    "notifications.read_all": {
        input: Record<string, never>;
        answer: ReadAll;
    };
    /** One-click unsubscribe (RFC 8058) from the notification digest: the mail's signed token turns email_digest off (POST /api/notifications/digest/unsubscribe/) */
    "notifications.digest_unsubscribe": {
        input: {
            token: string;
            "List-Unsubscribe"?: string;
        };
        answer: DigestUnsubscribed;
    };
}
/** Every event the server pushes, with its payload. */
export interface ServerEvents {
    /** A post in a location or community room the socket hears */
    "post:created": Post;
    /** Its author edited a post the socket hears (the whole post; edited_at set) */
    "post:updated": Post;
    /** A post went away (deleted, hidden, its community deleted) */
    "post:deleted": {
        id: string;
    };
    /** A post's counters, at most once a second per post (an event's also carry its going and interested counts) */
    "post:stats": {
        post_id: string;
        likes_count: number;
        comments_count: number;
        views_count: number;
        going_count?: number;
        interested_count?: number;
    };
    /** A comment on a post whose room the socket subscribed to */
    "comment:created": Comment;
    /** Its author edited a comment on a post whose room the socket subscribed to */
    "comment:updated": Comment;
    /** A vote moved a poll's results */
    "poll:updated": {
        post_id: string;
        poll_data: Poll;
    };
    /** A poll closed */
    "poll:expired": {
        post_id: string;
        poll_data: Poll;
    };
    /** A notification of the socket's user */
    "notification:created": Notification;
    /** A notification changed (read on another device) */
    "notification:updated": Notification;
    /** Every notification of the user was marked read (on another device): clear the badge */
    "notification:read_all": {
        read_at: string;
    };
    /** A message in one of the user's conversations */
    "message:created": Message;
    /** Another participant read a conversation */
    "conversation:read": ConversationRead;
    /** Another participant is typing (never stored) */
    "typing": {
        conversation_id: string;
        user_id: string;
    };
    /** A location's name, boundary or confidence changed */
    "location:updated": Location;
    /** An order for one of the user's stores */
    "order:created": Order;
    /** An order the user placed or received changed */
    "order:updated": Order;
    /** A community the socket subscribed to was deleted; its room is emptied */
    "community:deleted": {
        id: string;
    };
    /** The access token ran out without auth:renew; the server disconnects */
    "auth:expired": Record<string, unknown>;
}
export type AuthRule = "public" | "optional" | "user" | "staff" | "admin";
export interface OperationRoute {
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
    path: string;
    auth: AuthRule;
    /** Multipart file fields: a call that sends one goes over REST. */
    files: readonly string[];
}
/** How each operation is reached over REST (method, path with `{param}`s) and who may call it. */
export declare const operationRoutes: {
    readonly [K in keyof Operations]: OperationRoute;
};
export declare const serverEventNames: readonly ["post:created", "post:updated", "post:deleted", "post:stats", "comment:created", "comment:updated", "poll:updated", "poll:expired", "notification:created", "notification:updated", "notification:read_all", "message:created", "conversation:read", "typing", "location:updated", "order:created", "order:updated", "community:deleted", "auth:expired"];
