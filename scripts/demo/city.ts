/**
 * The demo city, planned in full from a seed before any request is made: the same seed and size always plan the
 * same people, places, shops and posts, so a second run recognises what the first one made.
 */

export const DEMO_PASSWORD = 'neighbours-demo';
export const HOST_USERNAME = 'demo';
export const DEFAULT_SEED = 13;

/** mulberry32: a small, fast, deterministic generator. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const sample = <T>(items: readonly T[], n: number): T[] => {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, Math.max(0, Math.min(n, copy.length)));
  };
  return { next, int, pick, sample };
}
export type Rng = ReturnType<typeof rng>;

export interface Neighbourhood {
  name: string;
  latitude: number;
  longitude: number;
  /** The levels a geocoder would send for a point here (the contract's hierarchy fields). */
  address: Record<string, string>;
  /** Share of the population living here. */
  share: number;
  streets: string[];
  spots: string[];
}

const region = { country: 'United Kingdom', state: 'Scotland', county: 'City of Edinburgh', city: 'Edinburgh' };

/**
 * Four Edinburgh neighbourhoods, at least 1.8 km apart, so that each becomes a location of its own under the
 * joining rule (published radius 500 m + 400 m until a place has 10 members). The first is the main one.
 */
export const NEIGHBOURHOODS: Neighbourhood[] = [
  {
    name: 'Leith Shore',
    latitude: 55.9755,
    longitude: -3.172,
    address: { ...region, district: 'Leith', suburb: 'Leith', neighbourhood: 'Leith Shore' },
    share: 0.4,
    streets: ['The Shore', 'Bernard Street', 'Constitution Street', 'Henderson Street', 'Commercial Street'],
    spots: ['the Water of Leith path', 'the Kirkgate', 'Leith Links', 'the old custom house', 'Ocean Terminal'],
  },
  {
    name: 'Stockbridge',
    latitude: 55.958,
    longitude: -3.209,
    address: { ...region, district: 'Inverleith', suburb: 'Stockbridge', neighbourhood: 'Stockbridge' },
    share: 0.25,
    streets: ['Raeburn Place', 'St Stephen Street', 'Deanhaugh Street', 'Saxe Coburg Street'],
    spots: ['the Sunday market', 'Inverleith Park', 'the Colonies', 'the Botanic Garden gate'],
  },
  {
    name: 'Marchmont',
    latitude: 55.9365,
    longitude: -3.1925,
    address: { ...region, district: 'Southside', suburb: 'Marchmont', neighbourhood: 'Marchmont' },
    share: 0.2,
    streets: ['Marchmont Road', 'Warrender Park Road', 'Spottiswoode Street', 'Thirlestane Road'],
    spots: ['the Meadows', 'Bruntsfield Links', 'the Warrender baths', 'Sciennes playground'],
  },
  {
    name: 'Morningside',
    latitude: 55.9225,
    longitude: -3.2105,
    address: { ...region, district: 'Morningside', suburb: 'Morningside', neighbourhood: 'Morningside' },
    share: 0.15,
    streets: ['Morningside Road', 'Comiston Road', 'Canaan Lane', 'Balcarres Street'],
    spots: ['the Hermitage of Braid', 'Blackford Hill', 'the Dominion cinema', 'the clock at the station'],
  },
];

const FIRST = ['Isla', 'Callum', 'Ava', 'Finlay', 'Eilidh', 'Rory', 'Freya', 'Lewis', 'Skye', 'Euan', 'Morven', 'Fraser', 'Ailsa', 'Jamie', 'Kirsty', 'Hamish', 'Niamh', 'Angus', 'Catriona', 'Ross', 'Priya', 'Tomasz', 'Amara', 'Mateo', 'Leila', 'Kenji', 'Zofia', 'Omar', 'Ines', 'Luca', 'Mairi', 'Duncan', 'Rosa', 'Ewan', 'Hannah', 'Arjun', 'Sofia', 'Malcolm', 'Nadia', 'Graham'];
const LAST = ['Mackay', 'Campbell', 'Reid', 'Fraser', 'Robertson', 'Murray', 'Stewart', 'Ferguson', 'Baird', 'Kerr', 'Douglas', 'Grant', 'Munro', 'Sinclair', 'Paterson', 'Nowak', 'Okafor', 'Haddad', 'Rossi', 'Tanaka', 'Silva', 'Kowalski', 'Mensah', 'Shah', 'Ahmed'];
const BIOS = [
  'Lives for long walks along the water.',
  'Runs on coffee and crosswords.',
  'Gardener, cyclist, occasional baker.',
  'New to the area, say hi!',
  'Photographs doors, cats and sunsets.',
  'Plays fiddle badly and loudly.',
  'Always up for a pub quiz.',
  'Fixes bikes for neighbours, ask away.',
  'Teacher by day, choir by night.',
  'Dog walker, litter picker, tea drinker.',
  '',
];

export interface PlannedUser {
  username: string;
  email: string;
  display_name: string;
  bio: string;
  hood: number;
  latitude: number;
  longitude: number;
}

export interface PlannedProduct {
  name: string;
  description: string;
  category: string;
  price: string;
  stock: number;
  images: number;
}

export interface PlannedStore {
  owner: string;
  name: string;
  slug: string;
  description: string;
  products: PlannedProduct[];
}

export interface PlannedCommunity {
  owner: string;
  name: string;
  description: string;
  category: string;
  hood: number;
  members: string[];
}

export type PostType = 'text' | 'image' | 'poll' | 'audio' | 'product_share' | 'store_share' | 'community_share';

export interface PlannedPost {
  author: string;
  post_type: PostType;
  content: string;
  title?: string;
  poll?: { question: string; options: string[]; multiple: boolean };
  /** product_share: `store slug/product name`; store_share: store slug; community_share: community name. */
  shares?: string;
  images?: number;
  likers: string[];
  comments: { author: string; content: string; replyTo?: number }[];
  voters: { username: string; options: number[] }[];
}

export interface PlannedConversation {
  other: string;
  /** true: said by the host (the demo login), false: by the other person. */
  messages: { fromHost: boolean; content: string }[];
}

export interface CityPlan {
  users: PlannedUser[];
  stores: PlannedStore[];
  communities: PlannedCommunity[];
  posts: PlannedPost[];
  conversations: PlannedConversation[];
}

const STORE_IDEAS: { name: string; description: string; products: [string, string, string][] }[] = [
  { name: 'Shore Bakehouse', description: 'Sourdough, buns and cakes baked at dawn.', products: [['Sourdough loaf', 'food_beverage', 'Slow-proved, dark crust.'], ['Cardamom bun', 'food_beverage', 'Swedish style, sticky.'], ['Oatcakes (12)', 'food_beverage', 'Made with Scottish oats.']] },
  { name: 'Raeburn Books', description: 'Second-hand and new books, local authors first.', products: [['Edinburgh walks guide', 'books_music', 'Twenty walks, with maps.'], ['Poetry of the Forth', 'books_music', 'Signed by the editor.'], ['Mystery bundle', 'books_music', 'Three crime novels, wrapped.']] },
  { name: 'Links Bike Repair', description: 'Tune-ups, tyres and second-hand bikes.', products: [['Full service', 'sports_outdoors', 'Gears, brakes, chain, true wheels.'], ['Refurbished town bike', 'sports_outdoors', 'Steel frame, mudguards, rack.'], ['Puncture kit', 'sports_outdoors', 'Patches, levers, glue.']] },
  { name: 'Marchmont Plants', description: 'House plants and cuttings from a tenement flat.', products: [['Monstera cutting', 'home_garden', 'Rooted, in a recycled pot.'], ['Herb trio', 'home_garden', 'Basil, mint, thyme.'], ['Terracotta pot', 'home_garden', 'Hand-thrown, 12 cm.']] },
  { name: 'Braid Ceramics', description: 'Mugs and bowls thrown in a garden studio.', products: [['Speckled mug', 'arts_crafts', 'Holds a proper pint of tea.'], ['Noodle bowl', 'arts_crafts', 'Glazed in sea green.'], ['Bud vase', 'arts_crafts', 'For one stem, or two.']] },
  { name: 'Kirkgate Coffee', description: 'Beans roasted on the Kirkgate every Thursday.', products: [['House espresso 250g', 'food_beverage', 'Chocolate and cherry.'], ['Decaf 250g', 'food_beverage', 'Swiss water process.'], ['Pour-over kit', 'home_garden', 'Dripper, filters, scoop.']] },
  { name: 'Stockbridge Knits', description: 'Hand-knitted hats, scarves and mittens.', products: [['Fair Isle hat', 'apparel', 'Lambswool, one size.'], ['Chunky scarf', 'apparel', 'Long enough for a haar.'], ['Baby mittens', 'apparel', 'No-scratch, pair.']] },
  { name: 'Canaan Lane Toys', description: 'Wooden toys and puzzles, repaired and new.', products: [['Wooden train set', 'toys_games', 'Twelve pieces, beech.'], ['Jigsaw: Arthur\'s Seat', 'toys_games', '500 pieces.'], ['Spinning top', 'toys_games', 'Hand-turned.']] },
  { name: 'Forth Fish Bar', description: 'Fresh fish and chips, gluten-free on Tuesdays.', products: [['Haddock supper', 'food_beverage', 'With salt and sauce.'], ['Fishcake', 'food_beverage', 'Smoked haddock and leek.']] },
  { name: 'Meadows Repair Café', description: 'Bring it broken, leave it mended.', products: [['Lamp rewiring', 'electronics', 'Including a new plug.'], ['Phone screen swap', 'electronics', 'Most models, same day.'], ['Zip replacement', 'apparel', 'Jackets and bags.']] },
  { name: 'Hermitage Honey', description: 'Honey from hives on Blackford Hill.', products: [['Summer honey 340g', 'food_beverage', 'Runny, light.'], ['Heather honey 227g', 'food_beverage', 'Thick and dark.'], ['Beeswax candle', 'home_garden', 'Burns for 20 hours.']] },
  { name: 'Bernard Street Records', description: 'Vinyl, cassettes and turntable repairs.', products: [['Scottish folk LP', 'books_music', 'Near mint.'], ['Mixtape of the month', 'books_music', 'Cassette, 60 minutes.'], ['Stylus replacement', 'electronics', 'Fitted while you wait.']] },
];

const COMMUNITY_IDEAS: { name: string; description: string; category: string; hood: number }[] = [
  { name: 'Leith Runners', description: 'Easy 5k along the Water of Leith, Saturdays 9:00.', category: 'Sports', hood: 0 },
  { name: 'Stockbridge Gardeners', description: 'Seeds, cuttings and advice for tenement greens.', category: 'Gardening', hood: 1 },
  { name: 'Marchmont Book Swap', description: 'Bring one, take one. First Sunday of the month.', category: 'Books', hood: 2 },
  { name: 'Morningside Parents', description: 'Playdates, hand-me-downs and school-run tips.', category: 'Parents', hood: 3 },
  { name: 'Leith Food Lovers', description: 'Where to eat, what to cook, who sells it.', category: 'Food and drink', hood: 0 },
  { name: 'Edinburgh Litter Pickers', description: 'Monthly clean-ups, gloves provided.', category: 'Volunteering', hood: 0 },
];

const TEXTS = [
  'Anyone else hear the bagpiper on {street} this morning? Made my day.',
  'Lost a grey cat near {spot}, answers to Haggis. Please message me if you see him!',
  'The new bench by {spot} is lovely. Thank you to whoever organised it.',
  'Roadworks on {street} again from Monday, plan your bus route.',
  'Found a set of keys with a blue fob on {street}. Handed them in at the corner shop.',
  'Is there a good plumber in {hood}? Recommendations welcome.',
  'Sunset over {spot} tonight was unreal.',
  'Free: a box of children\'s books, outside my door on {street} until Sunday.',
  'The haar rolled in so fast I lost sight of {spot}.',
  'Community clean-up at {spot} on Saturday at 10. Gloves and bags provided!',
  'Who else is going to the street party on {street}?',
  'Thanks to the neighbour who returned my parcel. {hood} is the best.',
  'Bin collection moved to Thursday this week.',
  'Looking for a running buddy for early mornings around {spot}.',
  'The chip shop on {street} does a vegan haggis now. Verdict: excellent.',
  'Power cut on {street}? Ours just went out.',
  'Choir rehearsal open to all this Wednesday, no auditions.',
  'Can anyone lend a ladder for an afternoon? Will return with cake.',
];
const IMAGE_TEXTS = ['Morning light at {spot}.', 'My balcony tomatoes finally turned red.', 'Spotted on {street}: the tiniest door.', 'Spring is here at {spot}.', 'Mural going up on {street}.'];
const AUDIO_TEXTS = ['A little tune I wrote walking past {spot}.', 'Busker on {street}, recorded with permission.', 'Voice note: meeting point for Saturday is {spot}.'];
const POLLS: { question: string; options: string[]; multiple: boolean }[] = [
  { question: 'Best time for the street party?', options: ['Saturday afternoon', 'Sunday afternoon', 'Friday evening'], multiple: false },
  { question: 'Which improvements should we ask the council for?', options: ['More benches', 'Bike racks', 'Street trees', 'Better lighting'], multiple: true },
  { question: 'Where should the next book swap happen?', options: ['The library', 'The café', 'The park'], multiple: false },
  { question: 'Would you use a tool library?', options: ['Yes, weekly', 'Now and then', 'Probably not'], multiple: false },
  { question: 'Favourite local walk?', options: ['Along the water', 'Up the hill', 'Through the park', 'Around the old streets'], multiple: false },
];
const POLL_TEXTS = ['Quick poll for {hood}, vote below!', 'Settling a debate from the meeting at {spot}.', 'Help us decide, neighbours.', 'Your turn to choose, {hood}.'];
const COMMENTS = ['Thanks for sharing!', 'Same here.', 'I can help with that.', 'Lovely!', 'Good to know, thanks.', 'Count me in.', 'Where exactly?', 'Ha, brilliant.', 'Saw it too!', 'Sent you a message.', 'This is why I love this neighbourhood.', 'Any update?'];
const REPLIES = ['Agreed!', 'Exactly this.', 'Thanks, will do.', 'See you there.'];
const SHARE_TEXTS = {
  product_share: ['Treated myself to this, highly recommend.', 'Got one last week and love it.', 'Perfect little gift, still a few left.', 'Quality stuff from just round the corner.', 'Cheaper than in town, and local.', 'Bought two, no regrets.'],
  store_share: ['If you have not been yet, go. Lovely people.', 'My favourite shop in the area.', 'New stock in, worth a look.', 'Support local: this place is a gem.', 'Friendly owners and fair prices.', 'Popped in today, came out smiling.'],
  community_share: ['Join us, everyone welcome!', 'We meet every week, come along.', 'New members always welcome.', 'Great bunch of people, give it a try.', 'Looking for a few more hands, join in!', 'This group made me feel at home here.'],
};
const CHAT = [
  ['Hi! Are you coming to the clean-up on Saturday?', 'Yes! I will bring extra gloves.', 'Perfect, see you at 10.'],
  ['Do you still have the ladder?', 'I do, pop round after 6.', 'Thank you, cake is on me.'],
  ['Loved your photo of the sunset.', 'Thanks! It was a lucky evening.'],
  ['Is the book swap still on this Sunday?', 'It is, from 11 at the café.', 'Great, I have a bag of crime novels.', 'Bring them all!'],
  ['Welcome to the neighbourhood!', 'Thank you, everyone is so friendly here.'],
  ['Are you the one with the bike repair shop?', 'That is me, what needs fixing?', 'Gears are slipping.', 'Bring it by on Thursday.'],
  ['Your cat is sitting on my windowsill again.', 'Haha, sorry! He likes the view.'],
  ['Shall we start a running group?', 'Yes, Saturdays?', '9 am at the bridge.'],
];

const fill = (template: string, hood: Neighbourhood, r: Rng) => template.replace('{street}', r.pick(hood.streets)).replace('{spot}', r.pick(hood.spots)).replace('{hood}', hood.name);

/** Plans a city of `size` people (the host first) from `seed`. */
export function planCity(size: number, seed = DEFAULT_SEED, postsPerPerson = 2.5): CityPlan {
  const r = rng(seed);

  const users: PlannedUser[] = [];
  const taken = new Set<string>([HOST_USERNAME]);
  const hoodOf = (i: number) => {
    // Deterministic split by share, main neighbourhood first.
    let acc = 0;
    const x = (i + 0.5) / size;
    for (let h = 0; h < NEIGHBOURHOODS.length; h++) {
      acc += NEIGHBOURHOODS[h].share;
      if (x < acc) return h;
    }
    return NEIGHBOURHOODS.length - 1;
  };
  for (let i = 0; i < size; i++) {
    const hood = i === 0 ? 0 : hoodOf(i);
    const n = NEIGHBOURHOODS[hood];
    let first = 'Morgan';
    let last = 'Reid';
    let username = HOST_USERNAME;
    if (i > 0) {
      do {
        first = r.pick(FIRST);
        last = r.pick(LAST);
        username = `${first}.${last}`.toLowerCase();
        if (taken.has(username)) username = `${username}${r.int(2, 99)}`;
      } while (taken.has(username));
      taken.add(username);
    }
    // Within ~120 m of the neighbourhood's centre: well inside its boundary, so everyone joins the same place.
    const angle = r.next() * 2 * Math.PI;
    const metres = r.next() * 120;
    users.push({
      username,
      email: i === 0 ? 'demo@example.org' : `demo-${username}@example.org`,
      display_name: `${first} ${last}`,
      bio: i === 0 ? 'The demo account: log in as me.' : r.pick(BIOS),
      hood,
      latitude: Number((n.latitude + (metres * Math.cos(angle)) / 111_320).toFixed(6)),
      longitude: Number((n.longitude + (metres * Math.sin(angle)) / (111_320 * Math.cos((n.latitude * Math.PI) / 180))).toFixed(6)),
    });
  }
  const inHood = (h: number) => users.filter((u) => u.hood === h);
  const others = (u: string, pool: PlannedUser[]) => pool.filter((p) => p.username !== u).map((p) => p.username);

  // One shop per ~8 people, owners spread over the neighbourhoods (never the host).
  const storeCount = Math.min(STORE_IDEAS.length, Math.max(3, Math.round(size / 8)));
  const owners = r.sample(users.slice(1), storeCount);
  const stores: PlannedStore[] = STORE_IDEAS.slice(0, storeCount).map((idea, i) => ({
    owner: owners[i].username,
    name: idea.name,
    slug: `demo-${idea.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`.slice(0, 50),
    description: idea.description,
    products: idea.products.map(([name, category, description]) => ({
      name,
      description,
      category,
      price: (r.int(150, 6000) / 100).toFixed(2),
      stock: r.int(1, 40),
      images: r.int(1, 2),
    })),
  }));

  const communityCount = Math.min(COMMUNITY_IDEAS.length, Math.max(3, Math.round(size / 20)));
  const communities: PlannedCommunity[] = COMMUNITY_IDEAS.slice(0, communityCount).map((idea) => {
    const local = inHood(idea.hood);
    const owner = r.pick(local.slice(idea.hood === 0 ? 1 : 0));
    const members = r.sample(others(owner.username, users), r.int(Math.min(5, size - 1), Math.min(25, size - 1)));
    if (idea.hood === 0 && !members.includes(HOST_USERNAME) && owner.username !== HOST_USERNAME) members.push(HOST_USERNAME);
    return { owner: owner.username, name: idea.name, description: idea.description, category: idea.category, hood: idea.hood, members };
  });

  // About 2.5 posts per person by default, every type; reactions come from people of the same neighbourhood.
  const posts: PlannedPost[] = [];
  const postCount = Math.max(7, Math.round(size * postsPerPerson));
  const types: PostType[] = ['text', 'text', 'text', 'text', 'text', 'text', 'image', 'image', 'image', 'poll', 'poll', 'audio', 'product_share', 'store_share', 'community_share'];
  for (let i = 0; i < postCount; i++) {
    // The first posts cover every type once, so even a small city has them all.
    const post_type = i < 7 ? (['text', 'image', 'poll', 'audio', 'product_share', 'store_share', 'community_share'] as PostType[])[i] : r.pick(types);
    const author = i === 0 ? users[0] : r.pick(users);
    const hood = NEIGHBOURHOODS[author.hood];
    const neighbours = others(author.username, inHood(author.hood));
    const post: PlannedPost = { author: author.username, post_type, content: '', likers: [], comments: [], voters: [] };
    if (post_type === 'text') post.content = fill(r.pick(TEXTS), hood, r);
    if (post_type === 'image') {
      post.content = fill(r.pick(IMAGE_TEXTS), hood, r);
      post.images = r.int(1, 3);
    }
    if (post_type === 'audio') post.content = fill(r.pick(AUDIO_TEXTS), hood, r);
    if (post_type === 'poll') {
      post.poll = r.pick(POLLS);
      post.content = fill(r.pick(POLL_TEXTS), hood, r);
    }
    if (post_type === 'product_share') {
      const store = r.pick(stores);
      post.shares = `${store.slug}/${r.pick(store.products).name}`;
      post.content = r.pick(SHARE_TEXTS.product_share);
    }
    if (post_type === 'store_share') {
      post.shares = r.pick(stores).slug;
      post.content = r.pick(SHARE_TEXTS.store_share);
    }
    if (post_type === 'community_share') {
      post.shares = r.pick(communities).name;
      post.content = r.pick(SHARE_TEXTS.community_share);
    }
    // Same author, type and text twice would be one post to the idempotency check: that author says something else.
    const pool = post_type === 'text' ? TEXTS : post_type === 'image' ? IMAGE_TEXTS : post_type === 'audio' ? AUDIO_TEXTS : post_type === 'poll' ? POLL_TEXTS : SHARE_TEXTS[post_type];
    const taken = (content: string) => posts.some((p) => p.author === post.author && p.post_type === post.post_type && p.content === content);
    for (let attempt = 0; taken(post.content) && attempt < 50; attempt++) post.content = fill(r.pick(pool), hood, r);
    if (taken(post.content)) continue;
    post.likers = r.sample(neighbours, r.int(0, Math.min(12, neighbours.length)));
    const commenters = r.sample(neighbours, r.int(0, Math.min(4, neighbours.length)));
    post.comments = commenters.map((c) => ({ author: c, content: r.pick(COMMENTS) }));
    if (post.comments.length && r.next() < 0.4) post.comments.push({ author: author.username, content: r.pick(REPLIES), replyTo: 0 });
    if (post.poll) {
      post.voters = r.sample(neighbours, r.int(2, Math.min(15, Math.max(2, neighbours.length)))).map((username) => ({
        username,
        options: post.poll!.multiple ? r.sample([...post.poll!.options.keys()], r.int(1, 2)) : [r.int(0, post.poll!.options.length - 1)],
      }));
    }
    posts.push(post);
  }

  // The host's conversations, so the printed login has messages to read.
  const conversations: PlannedConversation[] = r.sample(users.slice(1), Math.min(CHAT.length, size - 1)).map((u, i) => ({
    other: u.username,
    messages: CHAT[i].map((content, k) => ({ fromHost: k % 2 === 0, content })),
  }));

  return { users, stores, communities, posts, conversations };
}
