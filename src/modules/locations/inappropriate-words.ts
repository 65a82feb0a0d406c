/**
 * The shipped list of words a location name may not contain, matched as whole words of the folded
 * name (so "Scunthorpe" and "Essex" pass). Deliberately short: it stops the obvious, and moderators
 * handle the rest through flag_for_review. Extend it here; entries are folded (lower case, no accents).
 */
export const INAPPROPRIATE_WORDS: ReadonlySet<string> = new Set([
  'fuck', 'fucking', 'fucker', 'motherfucker', 'shit', 'shitty', 'bullshit', 'cunt', 'cock', 'dick', 'dickhead',
  'pussy', 'asshole', 'arsehole', 'bitch', 'bastard', 'wanker', 'twat', 'slut', 'whore', 'porn', 'porno',
  'nazi', 'hitler', 'rape', 'rapist', 'pedo', 'paedo', 'pedophile', 'nigger', 'nigga', 'faggot', 'fag',
  'retard', 'retarded', 'kike', 'spic', 'chink', 'tranny',
]);
