/*
 * rules.arbitar._dds -- the native double-dummy solver for preferans (three hands, 32-card deck).
 *
 * Owns the fast search used by the Arbitar; rules/arbitar/dds_reference.py defines the same game value in
 * plain Python and the tests compare the two. What each technique below measured, and the variants tried and
 * dropped, are in docs/solver-journal.md, not here.
 *
 * Encoding: card index = suit * 8 + rank (suits S H D C = 0..3, ranks 7 8 9 T J Q K A = 0..7); a hand is a
 * 32-bit mask. Seats 0, 1, 2; play goes seat k -> k + 1 mod 3. Follow suit; when void, trump if holding a
 * trump (trump = -1 in sans and betl); else any card. The highest trump wins, else the highest card of the led
 * suit, and the winner leads next. A value is the number of tricks the declarer takes from a position to the
 * end (counting the trick in progress); the declarer maximizes it (minimizes in betl), the defenders minimize
 * it (maximize in betl).
 *
 * Technique:
 *  - yes/no searches ("does the declarer take >= t tricks?") with alpha-beta cut-offs; exact values come from
 *    a few such zero-window searches around a guess (MTD style);
 *  - a transposition table at trick boundaries whose entries stand for classes of positions ("relevant
 *    ranks"): every answer comes with the cards it depended on (trick winners of the proof, the cards the
 *    bounds used, equivalent cards skipped), closed upwards per suit and taken as few as each proof allows; an
 *    entry matches any position with the same leader and suit lengths whose top cards agree down to that region
 *    (relative ranks), wherever the smaller cards lie. Buckets hold BUCKET entries stored field by field and
 *    are chosen by the suit lengths (in betl also by the owners of the suits' top cards, top_owners); a bucket
 *    is scanned four entries at a time with SSE2 where the machine has it (every x86-64; a plain loop
 *    elsewhere), and its first lines are fetched ahead while the node's cheap checks run;
 *  - cheap sound bounds, each proved at its function: quick tricks (the leader's top cards, trumps first,
 *    capped by players who could ruff), the top-trump run of one player and trump-length counts, after the
 *    table; in sans and with trumps, a trick the declarer surely takes plus the quick tricks he then cashes on
 *    lead answers "does he take t tricks?" (sans_sure_tricks, trump_sure_tricks), and "does he take every trick
 *    left?" is no at once when a defender holds the top card of a side suit he holds; in betl, a yes/no game
 *    for the declarer: "does he take a trick?" is yes at once at any node of a trick the defenders can make him
 *    take (betl_takes_trick), "does he take every trick left?" is no when he can surely lose the trick in
 *    progress (betl_loses_trick), "all tricks left but one?" is no when he can surely lose two of the next
 *    three (betl_loses_two, betl_loses_two_mid), "does he take >= t?" is no at a trick's start when he surely
 *    ducks more than n - t tricks in a row (betl_ducks), and a declarer on lead whose every suit is above all
 *    the others' cards of it takes every trick left;
 *  - equivalent cards: of cards adjacent in rank among the cards still in play (cards on the table count as
 *    in play) only one is searched;
 *  - move ordering: the table's best lead always first, then the killer lead (per seat and tricks left, the
 *    lead that last cut off there), then a history of the leads that cut off before (per seat and card, a
 *    cut-off weighing 2**tricks left, the leads that failed before it losing twice that, aged), then simple
 *    trick-winning heuristics (betl's own: the declarer ducks, the defenders play under him); the last trick is
 *    counted directly. Ordering never changes a value, only how soon a cut-off comes;
 *  - cost per node: search_n is compiled once per strain (search_betl, search_sans, search_trump, the strain a
 *    constant in each, so each copy carries only its own checks); the cards in play are passed down, the card
 *    winning the trick so far is carried from node to node (c->wpos); the relative hands (normalize) only when
 *    the bucket holds an entry of the position's shape, else at the store; built with -fno-wrapv (setup.py);
 *  - a Solver object owns its table (bounded: 24 bytes per entry, 2**tt_bits entries, at most 2**MAX_TT_BITS)
 *    and keeps it across calls while the strain and declarer stay the same (a table just emptied by clear()
 *    is not emptied again by the next call), so layouts visited in revolving-door order (layouts(): one card
 *    changes hands between neighbours, small cards most often) reuse what their neighbours proved. The GIL is
 *    released during every search; one Solver serves one thread at a time, several Solvers run in parallel.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define HAVE_SSE2 1
#endif

/* Population count without a library call (no -mpopcnt: the build must run on any x86-64 or ARM). */
static inline int POPCNT(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

#if defined(__GNUC__) || defined(__clang__)
#define CTZ(x) __builtin_ctz(x)
#define TOPBIT(x) (31 - __builtin_clz(x))
#else
static int CTZ(uint32_t x) { int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
static int TOPBIT(uint32_t x) { int n = -1; while (x) { x >>= 1; n++; } return n; }
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define PREFETCH(p) __builtin_prefetch(p)
#elif defined(_MSC_VER)
#define ALWAYS_INLINE __forceinline
#define PREFETCH(p) ((void)(p))
#else
#define ALWAYS_INLINE inline
#define PREFETCH(p) ((void)(p))
#endif

#define NO_CARD 0xFF
#define MAX_TT_BITS 22 /* 2**22 entries * 24 bytes = 96 MB at most per Solver */
/* All the Solvers of the process together: a new table that would pass the limit is refused (MemoryError). The
 * limit is MAX_TOTAL_TT_BYTES unless set_table_limit() set another (the Arbitar's budget of a worker process). */
#define MAX_TOTAL_TT_BYTES ((size_t)256 << 20)
static size_t total_tt_bytes = 0;                  /* changed only with the GIL held (init, dealloc) */
static size_t tt_limit_bytes = MAX_TOTAL_TT_BYTES; /* changed only with the GIL held (set_table_limit) */

static uint8_t COMPRESS[256][256]; /* [in play][x]: the bits of x at the positions of in play, packed low */
static uint8_t EXPAND[256][256];   /* [in play][c]: the low bits of c placed at the positions of in play */
static uint8_t POP8[256];          /* the number of cards in a byte (one suit) */
static const uint32_t SUIT[4] = {0xFFu, 0xFF00u, 0xFF0000u, 0xFF000000u};
static const int NEXT[3] = {1, 2, 0};
static const int MOD3[6] = {0, 1, 2, 0, 1, 2}; /* (a + b) % 3 for seats and trick positions 0..2 */

static void init_tables(void) {
    for (int a = 0; a < 256; a++) {
        int n = 0;
        for (int b = 0; b < 8; b++) n += a >> b & 1;
        POP8[a] = (uint8_t)n;
    }
    for (int a = 0; a < 256; a++) {
        for (int x = 0; x < 256; x++) {
            int out = 0, k = 0;
            for (int b = 0; b < 8; b++) {
                if (a >> b & 1) {
                    if (x >> b & 1) out |= 1 << k;
                    k++;
                }
            }
            COMPRESS[a][x] = (uint8_t)out;
            out = 0;
            k = 0;
            for (int b = 0; b < 8; b++) {
                if (a >> b & 1) {
                    if (x >> k & 1) out |= 1 << b;
                    k++;
                }
            }
            EXPAND[a][x] = (uint8_t)out;
        }
    }
}

/* One table entry stands for a class of positions: the same leader, the same suit lengths in every hand and
 * the same owners of the top cards of each suit down to the entry's region; the smaller cards of a suit
 * (below the region) may lie anywhere the lengths allow. Its bounds hold for every position of the class:
 * the search computes, with every result, the cards that result depended on (the winners of the tricks in
 * the proof, the cards the quick-trick bounds used, equivalent cards it skipped), as in the "relevant ranks"
 * of bridge solvers. Neighbouring layouts differ in small cards, so they share many entries. */
#ifndef BUCKET
#define BUCKET 16 /* entries of one shape share a bucket; 16: one SSE2 register of byte scores for victim() */
#endif
#if BUCKET > 32 || BUCKET % 4
#error "BUCKET: a multiple of 4, at most 32 (a probe answers with one bit per entry in a uint32_t)"
#endif

/* A bucket of entries, stored field by field so that the scan reads little. Entry i: */
typedef struct {
    uint32_t shape01[BUCKET]; /* suit lengths of hands 0 and 1: per suit byte, hand 0 low nibble, hand 1 high */
    uint32_t shape2[BUCKET];  /* suit lengths of hand 2 per byte, the leader + 1 in byte 0's high nibble; 0: empty */
    uint32_t k0[BUCKET];     /* the cards of hands 0 and 1 inside the region, relative ranks */
    uint32_t k1[BUCKET];
    uint32_t region[BUCKET]; /* relative ranks: the top cards of each suit that must match */
    uint8_t bounds[BUCKET];  /* lower << 4 | upper */
    uint8_t move[BUCKET];    /* best lead: suit * 8 + relative rank, or NO_CARD */
    uint8_t gen[BUCKET];     /* the search that last used it */
    uint8_t depth[BUCKET];   /* tricks left */
} Bucket;
#ifndef TT_MIN_DEPTH
#define TT_MIN_DEPTH 2 /* tricks left; under 2 the last trick is counted directly, cheaper than a probe */
#endif

typedef struct {
    Bucket *tt;  /* 64-byte aligned */
    void *tt_block; /* what malloc returned */
    uint32_t nbuckets_mask;
    int trump; /* -1: none */
    int betl;
    int declarer;
    int ismax[3];
    uint32_t h[3];
    int tleader;
    int nplayed;
    int tcards[3];
    int wpos; /* the place in the trick (0..nplayed-1) of the card winning it so far; set by search() and, for
               * each child, by search_n's move loop */
    uint8_t gen;
    uint64_t nodes;
    uint32_t hist[3][32]; /* history of leads: seat, card -> the weight of the cut-offs it gave (2**tricks left) */
    uint8_t killer[3][11]; /* killer leads: seat, tricks left -> the lead that last cut off there, or NO_CARD */
} Ctx;

static inline int beats(int c, int w, int trump) {
    int cs = c >> 3, ws = w >> 3;
    if (cs == ws) return c > w;
    return cs == trump;
}

static inline int trick_winner(const Ctx *c) {
    int best = 0;
    if (beats(c->tcards[1], c->tcards[0], c->trump)) best = 1;
    if (beats(c->tcards[2], c->tcards[best], c->trump)) best = 2;
    return MOD3[c->tleader + best];
}

static inline int winning_index(const Ctx *c) {
    int best = 0;
    if (beats(c->tcards[1], c->tcards[0], c->trump)) best = 1;
    if (beats(c->tcards[2], c->tcards[best], c->trump)) best = 2;
    return best;
}

/* The trick in progress (nplayed > 0) as the node's checks and move ordering need it, derived once per node
 * from c->wpos (no loop over the trick's cards). */
typedef struct {
    int led; /* the led suit */
    int win; /* the card winning the trick so far (in sans and betl: the highest card of the led suit) */
} Trick;

static const int PLAYED[3][3] = {{0, 1, 3}, {0, 2, 6}, {0, 4, 5}}; /* [leader][cards played]: seats as bits */

/* The legal cards of seat in the current trick. */
static inline uint32_t legal_cards(const Ctx *c, int seat) {
    uint32_t hand = c->h[seat];
    if (!c->nplayed) return hand;
    uint32_t f = hand & SUIT[c->tcards[0] >> 3];
    if (f) return f;
    if (c->trump >= 0 && (hand & SUIT[c->trump])) return hand & SUIT[c->trump];
    return hand;
}

/* Hands 0 and 1 in relative ranks (hand 2 follows from them and the suit lengths). */
static inline void normalize(const uint32_t h[3], uint32_t k[2]) {
    uint32_t all = h[0] | h[1] | h[2];
    k[0] = k[1] = 0;
    for (int s = 0; s < 4; s++) {
        int sh = 8 * s;
        unsigned a = (all >> sh) & 0xFFu;
        k[0] |= (uint32_t)COMPRESS[a][(h[0] >> sh) & 0xFFu] << sh;
        k[1] |= (uint32_t)COMPRESS[a][(h[1] >> sh) & 0xFFu] << sh;
    }
}

/* The entries of bucket b that match the shape and whose region agrees with the relative hands k0, k1: a bit
 * mask (bit i: entry i). */
static inline uint32_t probe_bucket(const Bucket *b, uint32_t s01, uint32_t s2, uint32_t k0, uint32_t k1) {
    uint32_t hits = 0;
#ifdef HAVE_SSE2
    const __m128i S01 = _mm_set1_epi32((int)s01), S2 = _mm_set1_epi32((int)s2);
    const __m128i K0 = _mm_set1_epi32((int)k0), K1 = _mm_set1_epi32((int)k1);
    for (int i = 0; i < BUCKET; i += 4) {
        __m128i reg = _mm_load_si128((const __m128i *)(b->region + i));
        __m128i m = _mm_and_si128(_mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape01 + i)), S01),
                                  _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape2 + i)), S2));
        m = _mm_and_si128(m, _mm_cmpeq_epi32(_mm_and_si128(K0, reg), _mm_load_si128((const __m128i *)(b->k0 + i))));
        m = _mm_and_si128(m, _mm_cmpeq_epi32(_mm_and_si128(K1, reg), _mm_load_si128((const __m128i *)(b->k1 + i))));
        hits |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(m)) << i;
    }
#else
    for (int i = 0; i < BUCKET; i++) {
        uint32_t reg = b->region[i];
        hits |= (uint32_t)((b->shape01[i] == s01) & (b->shape2[i] == s2) & ((k0 & reg) == b->k0[i]) &
                           ((k1 & reg) == b->k1[i])) << i;
    }
#endif
    return hits;
}

/* Does bucket b hold an entry of this shape? */
static inline int same_shape(const Bucket *b, uint32_t s01, uint32_t s2) {
#ifdef HAVE_SSE2
    const __m128i S01 = _mm_set1_epi32((int)s01), S2 = _mm_set1_epi32((int)s2);
    __m128i m = _mm_setzero_si128();
    for (int i = 0; i < BUCKET; i += 4)
        m = _mm_or_si128(m, _mm_and_si128(_mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape01 + i)), S01),
                                          _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape2 + i)), S2)));
    return _mm_movemask_epi8(m) != 0;
#else
    for (int i = 0; i < BUCKET; i++)
        if (b->shape01[i] == s01 && b->shape2[i] == s2) return 1;
    return 0;
#endif
}

/* The number of cards in each byte (suit) of x, one count per byte. */
static inline uint32_t suit_counts(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (x + (x >> 4)) & 0x0F0F0F0Fu;
}

/* Suit lengths of the three hands and the leader, as two words (see Bucket); the second is never 0. */
static inline void shape_of(const uint32_t h[3], int leader, uint32_t *s01, uint32_t *s2) {
    /* hands 0 and 1 counted at once, as the two halves of one 64-bit word */
    uint64_t x = (uint64_t)h[1] << 32 | h[0];
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    *s01 = (uint32_t)x | (uint32_t)(x >> 32) << 4;
    *s2 = suit_counts(h[2]) | (uint32_t)(leader + 1) << 4;
}

/* The entries of bucket b for exactly this shape, region and relative cards (bit i: entry i). */
static inline uint32_t same_entries(const Bucket *b, uint32_t s01, uint32_t s2, uint32_t region, uint32_t k0,
                                    uint32_t k1) {
    uint32_t same = 0;
#ifdef HAVE_SSE2
    const __m128i S01 = _mm_set1_epi32((int)s01), S2 = _mm_set1_epi32((int)s2), R = _mm_set1_epi32((int)region);
    const __m128i K0 = _mm_set1_epi32((int)k0), K1 = _mm_set1_epi32((int)k1);
    for (int i = 0; i < BUCKET; i += 4) {
        __m128i m = _mm_and_si128(_mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape01 + i)), S01),
                                  _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape2 + i)), S2));
        m = _mm_and_si128(m, _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->region + i)), R));
        m = _mm_and_si128(m, _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->k0 + i)), K0));
        m = _mm_and_si128(m, _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->k1 + i)), K1));
        same |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(m)) << i;
    }
#else
    for (int i = 0; i < BUCKET; i++)
        same |= (uint32_t)((b->shape01[i] == s01) & (b->shape2[i] == s2) & (b->region[i] == region) &
                           (b->k0[i] == k0) & (b->k1[i] == k1)) << i;
#endif
    return same;
}

/* The entry a new one replaces: an empty entry, else one with few tricks left, older searches first (the score
 * empty: -1, else depth * 2 + (used by this search), the lowest wins); among equal scores the first from
 * `start` on, wrapping around, so that equal candidates take turns. */
static inline int victim(const Bucket *b, uint8_t gen, unsigned start) {
#if defined(HAVE_SSE2) && BUCKET == 16
    /* The same choice, all 16 scores at once as bytes (score + 1: 0 .. 2 * 10 + 2). */
    const __m128i zero = _mm_setzero_si128();
    __m128i e0 = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128((const __m128i *)b->shape2), zero),
                                 _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape2 + 4)), zero));
    __m128i e1 = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape2 + 8)), zero),
                                 _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(b->shape2 + 12)), zero));
    __m128i empty = _mm_packs_epi16(e0, e1); /* 0xFF where empty */
    __m128i d = _mm_loadu_si128((const __m128i *)b->depth);
    __m128i used = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)b->gen), _mm_set1_epi8((char)gen));
    __m128i sc = _mm_sub_epi8(_mm_add_epi8(_mm_add_epi8(d, d), _mm_set1_epi8(1)), used); /* used: -1 */
    sc = _mm_andnot_si128(empty, sc);
    __m128i lo = _mm_min_epu8(sc, _mm_srli_si128(sc, 8));
    lo = _mm_min_epu8(lo, _mm_srli_si128(lo, 4));
    lo = _mm_min_epu8(lo, _mm_srli_si128(lo, 2));
    lo = _mm_min_epu8(lo, _mm_srli_si128(lo, 1));
    unsigned best = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(sc, _mm_set1_epi8((char)_mm_cvtsi128_si32(lo))));
    unsigned rot = (best >> start | best << (16 - start)) & 0xFFFFu;
    return (int)((start + (unsigned)CTZ(rot)) % 16);
#else
    int wscore = 1 << 30, hit = 0;
    for (int j = 0; j < BUCKET; j++) {
        int i = (int)((start + (unsigned)j) % BUCKET);
        int sc = b->shape2[i] ? b->depth[i] * 2 + (b->gen[i] == gen) : -1;
        if (sc < wscore) {
            wscore = sc;
            hit = i;
        }
    }
    return hit;
#endif
}

/* Betl: which hand holds the top card in play of each suit: bit s hand 0, bit 4 + s hand 1 (neither: hand 2, or
 * the suit is out). Hand 0 holds it when his byte of the suit is above the other two hands' byte together. */
static inline uint32_t top_owners(const uint32_t h[3]) {
#ifdef HAVE_SSE2
    const __m128i v = _mm_set_epi32(0, 0, (int)h[1], (int)h[0]);
    const __m128i o = _mm_set_epi32(0, 0, (int)(h[0] | h[2]), (int)(h[1] | h[2]));
    return ~(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, o), o)) & 0xFFu; /* v > o per byte */
#else
    uint32_t f = 0;
    for (int s = 0; s < 4; s++) {
        uint32_t a = h[0] >> (8 * s) & 0xFFu, b = h[1] >> (8 * s) & 0xFFu, d = h[2] >> (8 * s) & 0xFFu;
        f |= (uint32_t)(a > (b | d)) << s | (uint32_t)(b > (a | d)) << (4 + s);
    }
    return f;
#endif
}

/* Hashed on the shape, and in betl also on top_owners (f; 0 elsewhere). Every entry that may match a position
 * lies in its bucket when f = 0; with f, see the store (search_n). */
static inline Bucket *bucket_of(const Ctx *c, uint32_t s01, uint32_t s2, uint32_t f) {
    uint64_t x = (((uint64_t)s2 << 32 | s01) ^ (uint64_t)f << 52) * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 31;
    x *= 0xD6E8FEB86659FD93ULL;
    x ^= x >> 32;
    return c->tt + ((uint32_t)x & c->nbuckets_mask);
}

/* The cards of `all` from the lowest card of `r` upwards, suit by suit. */
static inline uint32_t closure(uint32_t all, uint32_t r) {
    /* every bit of r smeared upwards inside its byte (suit), all four suits at once */
    r |= (r << 1) & 0xFEFEFEFEu;
    r |= (r << 2) & 0xFCFCFCFCu;
    r |= (r << 4) & 0xF0F0F0F0u;
    return all & r;
}

/* Relative region (compressed per suit) to absolute cards of `all`, and back. */
static inline uint32_t expand_region(uint32_t all, uint32_t rel) {
    uint32_t out = 0;
    for (int s = 0; s < 4; s++) {
        int sh = 8 * s;
        out |= (uint32_t)EXPAND[(all >> sh) & 0xFFu][(rel >> sh) & 0xFFu] << sh;
    }
    return out;
}

static inline uint32_t compress_region(uint32_t all, uint32_t abs) {
    uint32_t out = 0;
    for (int s = 0; s < 4; s++) {
        int sh = 8 * s;
        out |= (uint32_t)COMPRESS[(all >> sh) & 0xFFu][(abs >> sh) & 0xFFu] << sh;
    }
    return out;
}

/* What a finished trick's outcome depends on besides the suit lengths: the winning card and every card above it,
 * when another card of its suit lies in the trick; nothing when none does (the winner is then the one trump, or
 * the led card with the two others discarded: in any position of the same lengths the same seats play a card
 * of the same suits there, and the same seat wins, whatever the ranks). Leaving it out in the second case makes
 * the entries of such tricks hold for more layouts. w: the winner's place 0..2. */
static inline uint32_t trick_region(uint32_t all, int t0, int t1, int t2, int w) {
    int win = w == 0 ? t0 : w == 1 ? t1 : t2, ws = win >> 3;
    if ((t0 >> 3 == ws) + (t1 >> 3 == ws) + (t2 >> 3 == ws) < 2) return 0;
    return closure(all, 1u << win);
}

/* A region that ends inside a run of equivalent legal cards of the mover is extended over the whole run: the
 * search tried only one card of the run, so the smaller ones must stay the same cards. */
static inline uint32_t extend_runs(uint32_t all, uint32_t r, uint32_t legal) {
    for (int s = 0; s < 4; s++) {
        uint32_t rs = r & SUIT[s];
        if (!rs) continue;
        int low = CTZ(rs);
        if (!(legal >> low & 1)) continue;
        uint32_t below = all & SUIT[s] & ((1u << low) - 1u);
        /* the run goes down to the highest card below that is not legal (it stays out), else to the bottom */
        uint32_t stop = below & ~legal;
        r |= stop ? below & ~((2u << TOPBIT(stop)) - 1u) : below;
    }
    return r;
}

/* Move ordering in betl, where the declarer wants to lose every trick and the defenders want him to win one:
 * the declarer ducks with his highest card under the winner (or unloads his highest card when void or when he
 * must win as last to play); a defender leads low where the declarer holds only higher cards, plays under the
 * declarer's winning card, low before the declarer plays, and unloads high cards otherwise. */
static int betl_score(const Ctx *c, int seat, int m, int np, const Trick *t, int wseat) {
    int rank = m & 7, s = m >> 3, decl = c->declarer;
    uint32_t ds = c->h[decl] & SUIT[s];
    if (!np) {
        if (seat == decl) {
            uint32_t lower = (c->h[NEXT[seat]] | c->h[NEXT[NEXT[seat]]]) & SUIT[s] & ~((2u << m) - 1u);
            return lower ? 150 - rank : 50 - rank; /* a lead someone can overtake first, low first */
        }
        if (!ds) return 40 - rank;
        return CTZ(ds) > m ? 200 - rank : 120 - rank;
    }
    if (s != t->led) return 150 + rank; /* a discard: the highest first */
    int wins = m > t->win;
    if (seat == decl) {
        if (!wins) return 200 + rank;
        return np == 2 ? 100 + rank : 100 - rank;
    }
    if (wseat == decl) return wins ? 50 - rank : 200 + rank;
    /* the declarer has not played yet (np == 1), or has and is already beaten */
    return MOD3[decl + 3 - c->tleader] < np ? 100 + rank : 200 - rank;
}

/* Lead scores above every history weight (aged at 2**20) and heuristic (under 1000): the table's best lead is
 * always searched first (a history could otherwise outscore it), then the killer lead, the one that last cut
 * off at a lead of the same seat with as many tricks left. The killer may be a card no longer in the hand, or
 * another seat's after a layout change: it then matches no move. Ordering never changes a value, only how soon
 * a cut-off comes. */
#define FIRST_SCORE (1 << 30)
#define KILLER_SCORE (1 << 28)

/* The legal cards of seat, one per group of equivalent cards, best first; inplay: the cards in the hands and on
 * the table; n_left: the cards of seat (the tricks left, the current one included). */
static inline int gen_moves(const Ctx *c, int seat, int n_left, int *out, uint32_t *runs, int first, uint32_t inplay,
                            const Trick *t, int wpos, int betl, int trump) {
    uint32_t hand = c->h[seat];
    uint32_t legal = hand;
    uint32_t others = inplay & ~hand; /* (used on lead, where the table is empty: the others' hands) */
    int np = c->nplayed;
    int winner = -1, wseat = -1;
    if (np) {
        uint32_t f = hand & SUIT[t->led];
        if (f) legal = f;
        else if (trump >= 0 && (hand & SUIT[trump])) legal = hand & SUIT[trump];
        winner = t->win;
        wseat = MOD3[c->tleader + wpos];
    }
    /* One card (the highest) per run of legal cards adjacent among the cards in play. */
    uint32_t reps = 0;
    if (legal != hand || (np && (hand & SUIT[t->led]))) {
        /* a follow or a forced ruff: one suit, no loop over four */
        int sh = 8 * (CTZ(legal) >> 3);
        unsigned ls = (legal >> sh) & 0xFFu, a = (inplay >> sh) & 0xFFu;
        unsigned cm = COMPRESS[a][ls];
        reps = (uint32_t)EXPAND[a][cm & ~(cm >> 1)] << sh;
    } else {
        for (int s = 0; s < 4; s++) {
            int sh = 8 * s;
            unsigned ls = (legal >> sh) & 0xFFu;
            if (!ls) continue;
            unsigned a = (inplay >> sh) & 0xFFu;
            unsigned cm = COMPRESS[a][ls];
            reps |= (uint32_t)EXPAND[a][cm & ~(cm >> 1)] << sh;
        }
    }
    /* the legal cards when some are left out as equivalent to a higher one (else 0: every legal card is its own
     * representative, the card in play just under each is not legal, and extend_runs would add nothing) */
    *runs = reps == legal ? 0 : legal;
    if (!(reps & (reps - 1))) { /* one move: nothing to order */
        out[0] = CTZ(reps);
        return 1;
    }
    int n = 0, score[12];
    int me = c->ismax[seat];
    int killer = np ? -1 : c->killer[seat][n_left];
    int partner_wins = np && c->ismax[wseat] == me;
    while (reps) {
        int m = CTZ(reps);
        reps &= reps - 1;
        int rank = m & 7, s = m >> 3, sc;
        if (m == first) sc = FIRST_SCORE;
        else if (betl) sc = betl_score(c, seat, m, np, t, wseat);
        else if (!np) {
            uint32_t higher = others & SUIT[s] & ~((2u << m) - 1u);
            if (!higher) {
                sc = 200 + rank;
                if (trump >= 0 && s != trump) {
                    /* a top card that an opponent can ruff is no sure winner */
                    for (int o = 0; o < 3; o++)
                        if (o != seat && c->ismax[o] != me && !(c->h[o] & SUIT[s]) && (c->h[o] & SUIT[trump]))
                            sc = 90 + rank;
                }
            } else {
                int top = TOPBIT(higher);
                int owner = (c->h[0] >> top & 1) ? 0 : (c->h[1] >> top & 1) ? 1 : 2;
                sc = c->ismax[owner] == me ? 150 - rank : 100 - rank;
            }
        } else {
            int wins = beats(m, winner, trump);
            if (partner_wins) sc = wins ? 50 - rank : 100 - rank;
            else sc = wins ? 200 - rank : 100 - rank;
        }
        /* a lead: the leads that cut off often before come first, the heuristic breaks ties (follows keep no
         * history: what cut off after one lead says little about the next) */
        if (!np && m != first) {
            sc += (int)(c->hist[seat][m] >> 8) * 256;
            if (m == killer) sc += KILLER_SCORE;
        }
        int i = n++;
        while (i > 0 && score[i - 1] < sc) {
            score[i] = score[i - 1];
            out[i] = out[i - 1];
            i--;
        }
        score[i] = sc;
        out[i] = m;
    }
    return n;
}

/* The most disjoint pairs (h, l) with h above l, for two sets of ranks of one suit (8-bit masks). */
static inline int beat_pairs(uint32_t high, uint32_t low) {
    int pending = 0, pairs = 0;
    for (int r = 0; r < 8; r++) {
        if (low >> r & 1) pending++;
        else if ((high >> r & 1) && pending) {
            pending--;
            pairs++;
        }
    }
    return pairs;
}

/* Tricks the leader's side takes for sure by cashing the leader's top cards, trumps first (never in betl):
 * in each suit the leader's cards above every other card still in play (all his cards of the suit when these
 * outlast everyone else's), in a side suit capped by the length of every other player who holds a trump
 * (after that he must ruff). */
static int quick_tricks(const Ctx *c, int seat, int need, int trump, uint32_t *reg) {
    uint32_t mine = c->h[seat];
    uint32_t o1 = c->h[NEXT[seat]], o2 = c->h[NEXT[NEXT[seat]]];
    uint32_t others = o1 | o2;
    int q = 0, runs[4];
    uint32_t regs[4];
    int ruff1 = trump >= 0 && (o1 & SUIT[trump]), ruff2 = trump >= 0 && (o2 & SUIT[trump]);
    for (int s = 0; s < 4; s++) {
        int sh = 8 * s; /* one suit as a byte: lengths by table lookup */
        unsigned ms = (mine >> sh) & 0xFFu;
        runs[s] = 0;
        regs[s] = 0;
        if (!ms) continue;
        unsigned os = (others >> sh) & 0xFFu;
        unsigned top = os ? ms & ~((2u << TOPBIT(os)) - 1u) : ms;
        int run = POP8[top];
        /* with no other card of the suit the lengths say it all; else his top cards must stay his */
        if (os) regs[s] = (uint32_t)top << sh;
        /* once the others are out of the suit, his smaller cards of it win too */
        int l1 = POP8[(o1 >> sh) & 0xFFu], l2 = POP8[(o2 >> sh) & 0xFFu];
        if (run >= l1 && run >= l2) run = POP8[ms];
        if (s != trump) {
            if (ruff1 && l1 < run) run = l1;
            if (ruff2 && l2 < run) run = l2;
        }
        runs[s] = run;
        q += run;
    }
    if (q < need) return q; /* no answer from the bound: its region is never used */
    /* The region: only the suits needed to reach `need`, those that cost no region first, then the largest. */
    int got = 0;
    uint32_t r = 0;
    for (int s = 0; s < 4; s++)
        if (runs[s] && !regs[s]) {
            got += runs[s];
            runs[s] = 0;
        }
    while (got < need) {
        int bs = -1;
        for (int s = 0; s < 4; s++)
            if (runs[s] && (bs < 0 || runs[s] > runs[bs])) bs = s;
        if (bs < 0) break;
        got += runs[bs];
        r |= regs[bs];
        runs[bs] = 0;
    }
    *reg = r;
    return q;
}

/* The regions of the betl bounds below. A bound's answer depends on comparisons of the kind "every card of X in
 * suit s lies above Y's lowest card of s" (X, Y: hands, or a card on the table). Its certificate is the higher
 * card of the comparison with every card above it: closure(all, X's lowest card of s). In any position that agrees
 * there (and has the same suit lengths), X holds no card of s below it (his cards outside the region number his
 * length less his cards inside, 0 as here), and Y holds as many below it as here (at least one). The lower card
 * (Y's lowest) would also fix every card between the two, and so hold for fewer layouts.
 *
 * Betl: can the declarer surely lose the current trick, whatever the defenders do? Then he does not take every
 * trick left. *reg receives the cards the answer depends on (besides the suit lengths), per suit used from the
 * higher card of the comparison that decided upwards: a defender's lowest card when all his cards lie above the
 * declarer's lowest, the leader's lowest when the declarer holds a card under it, the card winning now when his
 * lowest lies under it, his card on the table when it is winning. The cases:
 *  - he leads: some suit where a defender holds only cards above his lowest card of it (that defender must
 *    follow over it);
 *  - a defender leads: in every suit the leader holds, the declarer is void (he discards), or his lowest card
 *    is below the leader's lowest (he plays under the led card), or the other defender holds only cards above
 *    it (played before him, he plays under it; after him, it goes over his lowest);
 *  - in a trick led: his card is winning and a defender still to play holds only cards of the led suit above
 *    it; he is still to play and is void in the led suit, or his lowest card of it is below the card winning
 *    now, or the other defender still to play (before or after him) holds only cards above it.
 * Where he may have to take the trick (a suit led he cannot duck), he still loses one when he can then lead
 * into a sure loss (betl_exit_after). */
/* Betl: after a trick of suit s that the declarer takes, can he surely lose the next one by leading? Yes when
 * in some other suit he holds, a defender holds only cards above his lowest one, and still will after this
 * trick: the defender holds two or more of them, or cannot discard in this trick (he has played to it, or
 * holds cards of s). Playing to s leaves the declarer's other suits as they are. played: the seats (bits) that
 * have played to the trick. Adds to *reg the cards of that suit from that defender's lowest one upwards. */
static int betl_exit_after(const Ctx *c, int s, int played, uint32_t all, uint32_t *reg) {
    int decl = c->declarer;
    uint32_t dh = c->h[decl];
    for (int k = 1; k < 3; k++) {
        int x = MOD3[decl + k];
        uint32_t xh = c->h[x];
        int keeps = (played >> x & 1) || (xh & SUIT[s]);
        for (int u = 0; u < 4; u++) {
            uint32_t du = dh & SUIT[u], xu = xh & SUIT[u];
            if (u == s || !du || !xu || CTZ(xu) < CTZ(du)) continue;
            if (keeps || (xu & (xu - 1u))) {
                *reg |= closure(all, xu & (0u - xu));
                return 1;
            }
        }
    }
    return 0;
}

static int betl_loses_trick(const Ctx *c, uint32_t all, const Trick *t, uint32_t *reg) {
    int decl = c->declarer, np = c->nplayed;
    int seat = MOD3[c->tleader + np];
    uint32_t dh = c->h[decl];
    *reg = 0;
    if (!np) {
        if (seat == decl) {
            for (int s = 0; s < 4; s++) {
                uint32_t ds = dh & SUIT[s];
                if (!ds) continue;
                int d = CTZ(ds);
                uint32_t o1 = c->h[NEXT[decl]] & SUIT[s], o2 = c->h[NEXT[NEXT[decl]]] & SUIT[s];
                if (o1 && CTZ(o1) > d) {
                    *reg = closure(all, o1 & (0u - o1));
                    return 1;
                }
                if (o2 && CTZ(o2) > d) {
                    *reg = closure(all, o2 & (0u - o2));
                    return 1;
                }
            }
            return 0;
        }
        uint32_t lh = c->h[seat], ph = c->h[3 - seat - decl], r = 0;
        for (int s = 0; s < 4; s++) {
            uint32_t ls = lh & SUIT[s], ds = dh & SUIT[s], ps = ph & SUIT[s];
            if (!ls || !ds) continue;
            if (CTZ(ds) < CTZ(ls)) {
                r |= closure(all, ls & (0u - ls)); /* he has a card under the leader's lowest */
                continue;
            }
            if (ps && CTZ(ps) > CTZ(ds)) {
                r |= closure(all, ps & (0u - ps)); /* the other defender's cards are all above his lowest */
                continue;
            }
            if (!betl_exit_after(c, s, 1 << seat, all, &r)) return 0;
        }
        *reg = r;
        return 1;
    }
    int led = t->led, w = t->win;
    int kd = MOD3[decl + 3 - c->tleader]; /* the declarer's place in the trick */
    int played = PLAYED[c->tleader][np];
    if (kd < np) {
        /* (when he is beaten already or discarded, only the last player is left, whose cards all end the
         * search at once) */
        int dc = c->tcards[kd];
        if (dc != w) return 0;
        *reg = closure(all, 1u << dc);
        for (int k = np; k < 3; k++) {
            uint32_t os = c->h[MOD3[c->tleader + k]] & SUIT[led];
            if (os && CTZ(os) > dc) return 1;
        }
        *reg = 0;
        return betl_exit_after(c, led, played, all, reg);
    }
    uint32_t ds = dh & SUIT[led];
    if (!ds) return 1; /* he discards */
    int d = CTZ(ds);
    if (d < w) {
        *reg = closure(all, 1u << w); /* (w: the winning card, and he has a card under it) */
        return 1;
    }
    if (seat != decl || np == 1) {
        uint32_t os = c->h[seat != decl ? seat : NEXT[seat]] & SUIT[led];
        if (os && CTZ(os) > d) {
            *reg = closure(all, os & (0u - os));
            return 1;
        }
    }
    return betl_exit_after(c, led, played, all, reg);
}

/* Betl, a trick about to be led: the number of tricks in a row from here the declarer surely loses by ducking
 * (0: the rule does not apply). Trick 1: he leads and loses (some suit where a defender holds only cards above
 * his lowest), or a defender leads and in every suit the leader holds he is void, his lowest is below the
 * leader's lowest, or the partner holds only cards above his lowest. Every later trick j is then led by a
 * defender Z; he follows a suit s always with his lowest card (and discards the highest card of a suit), so
 * before trick j he has played at most j - 1 cards of s, always his lowest, and his lowest card of s at trick j
 * is at most his min(j, m)-th lowest now (m: his cards of s) unless he is void; the defenders' cards only go.
 * He surely loses trick j when for each defender Z and suit s both hold, his min(j, m)-th lowest card of s is
 * below Z's lowest (he plays under the led card), or below the lowest of Z's partner, who holds j or more cards
 * of s (one still at trick j: he must follow above it). Per (Z, s): the largest such j; the answer is the least
 * of them (99: every trick left), and after k sure losses he takes at most n - k tricks. A pair whose count of
 * his cards under Z's lowest reaches the defenders' cards of s counts 99 too: each round of s is led by a
 * defender with a card of s (he loses every trick of the run, so a defender leads each), so there are no more
 * rounds than those cards, and at the r-th he plays at most his r-th lowest card now (so a lone high card of
 * his, such as an ace beside a low card where one defender holds one card, does not end the run). A whole suit
 * s (not the one he leads to trick 1) counts 99 when, his cards and the defenders' cards of s each in rising
 * order, his i-th lies under their i-th for every i up to his count
 * (h_i < d_i): he then always has a card under the led one. Proof: he plays his highest card under the led
 * card d_j; it is some h_i with i >= j (h_j < d_j), and after the round h'_k = h_k < d_k = d'_k for k < j,
 * h'_k = h_k < d_k <= d_{k+1} = d'_k for j <= k < i, h'_k = h_{k+1} < d_{k+1} = d'_k for k >= i; the other
 * defender's card to the round, the defenders' discards and his own discards (his highest card of a suit)
 * only remove cards, which keeps the order. *reg for it: the defenders' lowest card of s and up (the count of
 * his cards under it follows from the lengths). Example: his diamonds J 9 7 against the defenders' 8 T Q K A
 * count every trick (the pairs alone count two). Trick 1 led by a defender needs only the leader's pairs; it is
 * lost, so a defender leads each next one. *reg: per pair (Z, s) that counts, the lowest card of Z (or of Z's
 * partner) whose count of the declarer's cards under it decided the pair, and every card above it (the counts
 * under a card in the region follow from the lengths); the suit and card of the first trick when he leads. The
 * caller only asks whether the answer reaches need (>= 1): as soon as the least falls under need, 0 (as good an
 * answer). */
static int betl_ducks(const Ctx *c, int seat, uint32_t all, int need, uint32_t *reg) {
    int decl = c->declarer;
    uint32_t dh = c->h[decl];
    int k = 99, first = -1;
    uint32_t r = 0;
    if (seat == decl) {
        /* trick 1: his lowest card of some suit led into a defender who holds only higher cards of it; else 0 */
        for (int s = 0; s < 4 && first < 0; s++) {
            uint32_t ds = dh & SUIT[s];
            if (!ds) continue;
            uint32_t o1 = c->h[NEXT[decl]] & SUIT[s], o2 = c->h[NEXT[NEXT[decl]]] & SUIT[s];
            if ((o1 && CTZ(o1) > CTZ(ds)) || (o2 && CTZ(o2) > CTZ(ds))) {
                first = s;
                r = closure(all, ds & (0u - ds));
            }
        }
        if (first < 0) return 0;
    }
    uint32_t dd = c->h[NEXT[decl]] | c->h[NEXT[NEXT[decl]]];
    for (int s = 0; s < 4; s++) {
        uint32_t ds = dh & SUIT[s];
        if (!ds) continue;
        int sh = 8 * s, m = POP8[ds >> sh]; /* (counts inside one suit: the byte table) */
        if (s != first) {
            /* Every lead of s finds him with a card under the led one when, his cards and the defenders' of s
             * each in rising order, his i-th is under their i-th for every i up to the shorter count. */
            uint32_t os = dd & SUIT[s];
            if (!os) continue;
            unsigned h = (ds >> sh) & 0xFFu, o = (os >> sh) & 0xFFu;
            int mine = 0, theirs = 0, ok = 1;
            for (unsigned x = h | o; x && ok; x &= x - 1) {
                unsigned bit = x & (0u - x);
                if (h & bit) mine++;
                else if (++theirs <= m && mine < theirs) ok = 0;
            }
            if (ok) {
                r |= os & (0u - os);
                continue;
            }
        }
        for (int q = 1; q < 3; q++) {
            int z = MOD3[decl + q];
            uint32_t zs = c->h[z] & SUIT[s], ps = c->h[3 - z - decl] & SUIT[s];
            if (!zs) continue;
            uint32_t zlow = zs & (0u - zs);
            int bz = POP8[(ds & (zlow - 1u)) >> sh];
            if (bz >= m || bz >= POP8[zs >> sh] + POP8[ps >> sh]) {
                /* (every lead of s by Z finds him with a card under Z's lowest: he has no more, or there are no
                 * more rounds of s than his cards under it, each round being led by a defender with a card of s) */
                r |= zlow;
                continue;
            }
            int bp = 0;
            uint32_t plow = ps & (0u - ps);
            if (ps) {
                bp = POP8[(ds & (plow - 1u)) >> sh];
                if (bp >= m) bp = 99;
                if (bp > POP8[ps >> sh]) bp = POP8[ps >> sh];
            }
            int j = bz > bp ? bz : bp;
            if (j < 1) {
                if (z == seat) return 0;
                j = 1; /* trick 1 is not led by z */
            } else {
                r |= bz >= bp ? zlow : plow;
            }
            if (j < k) {
                k = j;
                if (k < need) return 0; /* (the least only falls: under need, the answer is no use) */
            }
        }
    }
    *reg = closure(all, r);
    return k;
}

/* Betl, the declarer on lead with three or more tricks left: can he surely lose two of the next three tricks?
 * Yes when he holds a suit u where a defender holds only cards above his lowest u card (he leads it: that
 * defender must go over it, the first loss), and a suit v where a defender holds only cards above his lowest v
 * card, enough of them to keep one after the next two tricks (one discard per trick at most: two more than the
 * tricks in which he may discard: the first when he is void in u, the second always; for v = u, the cards above
 * his second-lowest, one of them played to the first trick). Then the second trick is lost, or it is led in v
 * (that defender goes over his lowest v card), or he takes it and leads his lowest v card into that defender:
 * the second loss. *reg: the cards from each of those two defenders' lowest card of u and of v upwards. */
static int betl_loses_two(const Ctx *c, uint32_t all, uint32_t *reg) {
    int decl = c->declarer;
    uint32_t dh = c->h[decl];
    int xs[2] = {NEXT[decl], NEXT[NEXT[decl]]};
    for (int u = 0; u < 4; u++) {
        uint32_t du = dh & SUIT[u];
        if (!du) continue;
        int d = CTZ(du);
        uint32_t forced = 0;
        for (int k = 0; k < 2 && !forced; k++) {
            uint32_t xu = c->h[xs[k]] & SUIT[u];
            if (xu && CTZ(xu) > d) forced = xu & (0u - xu);
        }
        if (!forced) continue;
        for (int v = 0; v < 4; v++) {
            uint32_t dv = dh & SUIT[v];
            if (v == u) dv &= dv - 1u; /* his second-lowest card of u */
            if (!dv) continue;
            int e = CTZ(dv);
            for (int k = 0; k < 2; k++) {
                uint32_t xh = c->h[xs[k]], xv = xh & SUIT[v];
                if (!xv || CTZ(xv) < e) continue;
                int need = v == u ? 3 : 2 + !(xh & SUIT[u]);
                if (POP8[xv >> (8 * v)] >= need) {
                    *reg = closure(all, forced | (xv & (0u - xv)));
                    return 1;
                }
            }
        }
    }
    return 0;
}

/* Betl, a trick in progress and three or more tricks left: can the declarer surely lose two of this trick and
 * the next two? Yes when he surely loses this one (he is beaten already; his winning card must be overtaken by
 * a defender still to play who holds only higher cards of the led suit; he is void in it and discards; his
 * lowest card of it is below the card winning now; or the other defender, still to play, holds only cards of
 * it above his lowest), and in some other suit v a defender holds only cards above his lowest v card, enough
 * of them to keep one after this trick and the next (where he may discard: one more each). Then the next
 * trick is lost, or led in v (the defender goes over his lowest v card), or he takes it and leads his lowest
 * v card into that defender. *reg: the cards the two losses depend on besides the suit lengths (as for
 * betl_loses_trick, from the higher card of each comparison upwards). */
static int betl_loses_two_mid(const Ctx *c, uint32_t all, const Trick *t, uint32_t *reg) {
    int decl = c->declarer, np = c->nplayed;
    int seat = MOD3[c->tleader + np];
    uint32_t dh = c->h[decl];
    int led = t->led, w = t->win;
    int kd = MOD3[decl + 3 - c->tleader]; /* the declarer's place in the trick */
    int played = PLAYED[c->tleader][np];
    uint32_t r = 0;
    int lost = 0;
    if (kd < np) {
        int dc = c->tcards[kd];
        r = closure(all, 1u << dc);
        if (dc != w) lost = 1;
        for (int k = np; k < 3 && !lost; k++) {
            uint32_t os = c->h[MOD3[c->tleader + k]] & SUIT[led];
            if (os && CTZ(os) > dc) lost = 1;
        }
    } else {
        uint32_t ds = dh & SUIT[led];
        if (!ds) {
            lost = 1;
        } else {
            int d = CTZ(ds);
            if (d < w) {
                lost = 1;
                r = closure(all, 1u << w);
            } else if (seat != decl || np == 1) {
                uint32_t os = c->h[seat != decl ? seat : NEXT[seat]] & SUIT[led];
                if (os && CTZ(os) > d) {
                    lost = 1;
                    r = closure(all, os & (0u - os));
                }
            }
        }
    }
    if (!lost) return 0;
    for (int v = 0; v < 4; v++) {
        uint32_t dv = dh & SUIT[v];
        if (v == led || !dv) continue;
        int e = CTZ(dv);
        for (int k = 1; k < 3; k++) {
            int x = MOD3[decl + k];
            uint32_t xh = c->h[x], xv = xh & SUIT[v];
            if (!xv || CTZ(xv) < e) continue;
            int need = 2 + (!(played >> x & 1) && !(xh & SUIT[led]));
            if (POP8[xv >> (8 * v)] >= need) {
                *reg = r | closure(all, xv & (0u - xv));
                return 1;
            }
        }
    }
    return 0;
}

/* Betl: must the declarer take the trick in progress if the defenders let him (they play under his card, or
 * discard)? Then he takes a trick. A defender can let him when void in the suit or holding a card of it below
 * the declarer's lowest (below every card he may play). *reg receives the cards the answer depends on besides
 * the suit lengths: in the suit, those from his lowest card (from the winning card when he follows) upwards.
 *  - he leads: in every suit he holds, each defender is void or has a card below his lowest;
 *  - a defender leads: some suit the leader holds a card of below the declarer's lowest, and the other
 *    defender is void in it or holds one too;
 *  - in a trick led: he is to play, the card winning now is below his lowest card of the led suit, and the
 *    player after him (if any) is void or has a card below it; he plays after the defender to move, the same
 *    holds and that defender is void or has a card below it; or his card is winning and each defender still to
 *    play is void or has a card below it. */
static int betl_takes_trick(const Ctx *c, uint32_t all, const Trick *t, uint32_t *reg) {
    int decl = c->declarer, np = c->nplayed;
    int seat = MOD3[c->tleader + np];
    uint32_t dh = c->h[decl];
    *reg = 0;
    if (!np) {
        if (seat == decl) {
            uint32_t o1 = c->h[NEXT[decl]], o2 = c->h[NEXT[NEXT[decl]]], r = 0;
            for (int s = 0; s < 4; s++) {
                uint32_t ds = dh & SUIT[s];
                if (!ds) continue;
                uint32_t low = ds & (0u - ds), below = low - 1u;
                uint32_t a = o1 & SUIT[s], b = o2 & SUIT[s];
                if ((a && !(a & below)) || (b && !(b & below))) return 0;
                r |= closure(all, low);
            }
            *reg = r;
            return 1;
        }
        uint32_t lh = c->h[seat], ph = c->h[3 - seat - decl];
        for (int s = 0; s < 4; s++) {
            uint32_t ds = dh & SUIT[s];
            if (!ds) continue;
            uint32_t low = ds & (0u - ds), below = low - 1u, ps = ph & SUIT[s];
            if ((lh & SUIT[s] & below) && (!ps || (ps & below))) {
                *reg = closure(all, low);
                return 1;
            }
        }
        return 0;
    }
    int led = t->led, w = t->win;
    int kd = MOD3[decl + 3 - c->tleader];
    uint32_t from;
    if (kd < np) {
        if (c->tcards[kd] != w) return 0;
        from = 1u << w;
    } else {
        uint32_t ds = dh & SUIT[led];
        if (!ds || CTZ(ds) < w) return 0;
        from = 1u << w;
        uint32_t below = (ds & (0u - ds)) - 1u;
        for (int k = np; k < 3; k++) {
            int o = MOD3[c->tleader + k];
            uint32_t os = c->h[o] & SUIT[led];
            if (o != decl && os && !(os & below)) return 0;
        }
        *reg = closure(all, from);
        return 1;
    }
    uint32_t below = (1u << w) - 1u;
    for (int k = np; k < 3; k++) {
        uint32_t os = c->h[MOD3[c->tleader + k]] & SUIT[led];
        if (os && !(os & below)) return 0;
    }
    *reg = closure(all, from);
    return 1;
}

/* Sans: the tricks a hand `mine` on lead cashes against the hands o1 and o2 (quick_tricks without trumps), per
 * suit: run[s] the cards of s he cashes (his cards above all of o1's and o2's, or all his cards of s when those
 * outlast both), top[s] his cards above all of theirs (at least 1 when he holds the top card of s, all his
 * cards of s when they are void), reg[s] those top cards when o1 or o2 holds a card of s (else the lengths say
 * it). Returns the sum of the runs. Removing cards from o1 or o2 never lowers any of these counts. */
static inline int sans_runs(uint32_t mine, uint32_t o1, uint32_t o2, int run[4], int top[4], uint32_t reg[4]) {
    uint32_t others = o1 | o2;
    int q = 0;
    for (int s = 0; s < 4; s++) {
        int sh = 8 * s;
        unsigned ms = (mine >> sh) & 0xFFu, os = (others >> sh) & 0xFFu;
        unsigned t = os ? ms & ~((2u << TOPBIT(os)) - 1u) : ms;
        int r = POP8[t];
        top[s] = r;
        reg[s] = os ? (uint32_t)t << sh : 0;
        if (r >= POP8[(o1 >> sh) & 0xFFu] && r >= POP8[(o2 >> sh) & 0xFFu]) r = POP8[ms];
        run[s] = r;
        q += r;
    }
    return q;
}

/* Sans: a lower bound on the declarer's tricks from a trick he surely takes (0 when none is sure). *reg: the
 * cards it depends on besides the suit lengths (closed upwards).
 *  - a defender leads, and the declarer holds the top card of every suit the leader holds: whatever suit s is
 *    led, he wins it with his top card of s (no trumps: the highest card of the led suit wins) and leads next;
 *    then he cashes his other top cards of s and his runs in the other suits (sans_runs against the defenders'
 *    hands as they are now: the cards they play to this trick only leave them, which never lowers a run). So
 *    he takes at least top[s] + the runs of the other suits, for the worst s the leader may choose;
 *  - in a trick led, his card on the table is winning and no one still to play holds a higher card of the led
 *    suit, or he is still to play and holds a card of the led suit above the winning card and above every
 *    card of it the defenders still to play hold (he plays his highest): he takes this trick, leads next and
 *    cashes the runs of his hand after this trick against the defenders' hands now: 1 + those runs.
 * A declarer on lead is counted by quick_tricks. */
static int sans_sure_tricks(const Ctx *c, uint32_t all, int target, uint32_t *reg) {
    int decl = c->declarer, np = c->nplayed;
    uint32_t dh = c->h[decl], o1 = c->h[NEXT[decl]], o2 = c->h[NEXT[NEXT[decl]]];
    int run[4], top[4];
    uint32_t regs[4];
    if (!np) {
        int seat = c->tleader;
        if (seat == decl) return 0;
        uint32_t lh = c->h[seat], r = 0;
        for (int s = 0; s < 4; s++) {
            if (!(lh & SUIT[s])) continue;
            int t = TOPBIT(all & SUIT[s]);
            if (!(dh >> t & 1)) return 0;
            r |= 1u << t;
        }
        if (target <= 1) { /* the trick alone will do */
            *reg = r;
            return 1;
        }
        int q = sans_runs(dh, o1, o2, run, top, regs), lo = 99;
        for (int s = 0; s < 4; s++)
            if ((lh & SUIT[s]) && q - run[s] + top[s] < lo) lo = q - run[s] + top[s];
        if (lo < target) return lo; /* (no answer: the region is not used) */
        /* The region: the suits whose runs are needed, those that cost no region first, then the longest; a
         * leader's suit left out counts its top card alone. */
        int in = 0;
        for (int s = 0; s < 4; s++)
            if (!regs[s]) in |= 1 << s;
        for (;;) {
            int v = 99;
            for (int s = 0; s < 4; s++) {
                if (!(lh & SUIT[s])) continue;
                int x = in >> s & 1 ? top[s] : 1;
                for (int u = 0; u < 4; u++)
                    if (u != s && (in >> u & 1)) x += run[u];
                if (x < v) v = x;
            }
            if (v >= target) break;
            int bs = -1;
            for (int s = 0; s < 4; s++)
                if (!(in >> s & 1) && (bs < 0 || run[s] > run[bs])) bs = s;
            in |= 1 << bs;
            r |= regs[bs];
        }
        *reg = r;
        return lo;
    }
    int led = c->tcards[0] >> 3, w = c->tcards[0];
    for (int k = 1; k < np; k++)
        if ((c->tcards[k] >> 3) == led && c->tcards[k] > w) w = c->tcards[k];
    int kd = MOD3[decl + 3 - c->tleader];
    uint32_t rest = 0; /* the led suit's cards of the defenders still to play */
    for (int k = np; k < 3; k++) {
        int o = MOD3[c->tleader + k];
        if (o != decl) rest |= c->h[o] & SUIT[led];
    }
    int card;
    if (kd < np) {
        card = c->tcards[kd];
        if (card != w) return 0;
    } else {
        uint32_t ds = dh & SUIT[led];
        if (!ds) return 0;
        card = TOPBIT(ds);
        if (card < w) return 0;
        dh &= ~(1u << card);
    }
    if (rest && TOPBIT(rest) > card) return 0;
    if (target <= 1) { /* the trick alone will do */
        *reg = closure(all, 1u << card);
        return 1;
    }
    int q = sans_runs(dh, o1, o2, run, top, regs);
    if (1 + q < target) return 1 + q;
    /* The region: the suits whose runs are needed, those that cost no region first, then the longest. */
    uint32_t r = 1u << card;
    int got = 1;
    for (int s = 0; s < 4; s++)
        if (!regs[s]) {
            got += run[s];
            run[s] = 0;
        }
    while (got < target) {
        int bs = 0;
        for (int s = 1; s < 4; s++)
            if (run[s] > run[bs]) bs = s;
        got += run[bs];
        run[bs] = 0;
        r |= regs[bs];
    }
    *reg = closure(all, r);
    return 1 + q;
}

/* With trumps: a lower bound on the declarer's tricks from the trick in progress when he surely takes it (0 when
 * it is not sure). The card he takes it with: his card on the table when it is winning now; else, still to
 * play, his highest card of the led suit, or when void his highest trump, if it beats the card winning now. It
 * is sure when no defender still to play (before or after him) can beat it: a defender beats a trump only
 * with a higher trump, played when trumps are led or when he is void in the led suit (else he must follow);
 * he beats a card of a side suit led with a higher card of it, or with any trump when void in it. Then he leads
 * and cashes quick_tricks on the hands after this trick, where a defender still to play who holds the led suit
 * has lost a card of it (his lowest is taken out: his highest card and his lengths are then the worst the real
 * play can leave) and the others keep their hands (cards that only leave never lower the count: his top cards
 * stay top, the lengths that cap a suit against a ruffer change only in the led suit, as a defender who holds
 * a trump follows suit or trumps and never discards, and a ruffer may only stop being one). *reg: from his card
 * upwards, and what the quick tricks used. */
static int trump_sure_tricks(Ctx *c, uint32_t all, int target, uint32_t *reg) {
    int decl = c->declarer, np = c->nplayed, T = c->trump;
    if (!np) return 0;
    int led = c->tcards[0] >> 3, wc = c->tcards[0];
    for (int k = 1; k < np; k++)
        if (beats(c->tcards[k], wc, T)) wc = c->tcards[k];
    int kd = MOD3[decl + 3 - c->tleader];
    uint32_t dh = c->h[decl], TS = SUIT[T];
    int card;
    if (kd < np) {
        card = c->tcards[kd];
        if (card != wc) return 0;
    } else {
        uint32_t ds = dh & SUIT[led];
        if (ds) card = TOPBIT(ds);
        else if (dh & TS) card = TOPBIT(dh & TS);
        else return 0;
        if (!beats(card, wc, T)) return 0;
    }
    uint32_t above = ~((2u << card) - 1u) & SUIT[card >> 3];
    uint32_t saved[3] = {c->h[0], c->h[1], c->h[2]};
    for (int k = np; k < 3; k++) {
        int x = MOD3[c->tleader + k];
        if (x == decl) continue;
        uint32_t hx = c->h[x], xl = hx & SUIT[led];
        if ((card >> 3) == T) {
            if ((!xl || led == T) && (hx & TS & above)) return 0;
        } else if ((xl & above) || (!xl && (hx & TS))) {
            return 0;
        }
    }
    if (target <= 1) { /* the trick alone will do */
        *reg = closure(all, 1u << card);
        return 1;
    }
    for (int k = np; k < 3; k++) {
        int x = MOD3[c->tleader + k];
        uint32_t xl = c->h[x] & SUIT[led];
        if (x == decl) c->h[x] &= ~(1u << card);
        else if (xl) c->h[x] &= ~(xl & (0u - xl));
    }
    uint32_t qreg = 0;
    int q = quick_tricks(c, decl, target - 1, c->trump, &qreg);
    c->h[0] = saved[0];
    c->h[1] = saved[1];
    c->h[2] = saved[2];
    *reg = closure(all, 1u << card | qreg);
    return 1 + q;
}

/* Does the declarer take at least `target` tricks from the current position? *rel receives the cards (in
 * play here, closed upwards in each suit) the answer depends on besides the suit lengths. */
static int search_betl(Ctx *c, int target, uint32_t *rel, int n, uint32_t all);
static int search_sans(Ctx *c, int target, uint32_t *rel, int n, uint32_t all);
static int search_trump(Ctx *c, int target, uint32_t *rel, int n, uint32_t all);

/* The search of the Ctx's strain (one compiled copy of search_n each). */
static inline int search_strain(Ctx *c, int target, uint32_t *rel, int n, uint32_t all, int betl, int trump) {
    if (betl) return search_betl(c, target, rel, n, all);
    if (trump < 0) return search_sans(c, target, rel, n, all);
    return search_trump(c, target, rel, n, all);
}

static int search(Ctx *c, int target, uint32_t *rel) {
    uint32_t all = c->h[0] | c->h[1] | c->h[2];
    for (int k = 0; k < c->nplayed; k++) all |= 1u << c->tcards[k];
    c->wpos = 0;
    for (int k = 1; k < c->nplayed; k++)
        if (beats(c->tcards[k], c->tcards[c->wpos], c->trump)) c->wpos = k;
    return search_strain(c, target, rel, POPCNT(c->h[MOD3[c->tleader + c->nplayed]]), all, c->betl, c->trump);
}

/* search_n's steps, each a static inline function of its own (always inlined: the strain stays a constant in each
 * compiled copy). A step that answers the node returns 1 or 0 (yes or no) with *rel set to the cards the answer
 * depends on; one that does not returns -1 and leaves *rel alone. */

/* A trick's start: the table's bucket of this position (in betl chosen also by who holds each suit's top card,
 * top_owners; 0 elsewhere), its first two lines fetched ahead while the node's cheap checks run. Sound whatever
 * the bucket: a probe matches an entry only on the shape, leader and region, so the choice decides only where an
 * entry can be found. An entry whose region leaves out some suit's top card is found only from positions whose
 * top cards lie as where it was stored; in exchange the positions of one shape, which crowd their bucket in
 * betl, spread over several buckets. In sans and trump the regions leave out more suits, so f is 0 there. */
static ALWAYS_INLINE Bucket *node_bucket(const Ctx *c, int seat, uint32_t *s01, uint32_t *s2, const int betl) {
    shape_of(c->h, seat, s01, s2);
    Bucket *b = bucket_of(c, *s01, *s2, betl ? top_owners(c->h) : 0u);
    PREFETCH(b->shape01);
    PREFETCH(b->shape2);
    return b;
}

/* The bounds that may answer at any card of a trick, before the table (they need no probe). */
static ALWAYS_INLINE int trick_bounds(Ctx *c, int target, int n, uint32_t all, const Trick *t, uint32_t *rel,
                                      const int betl, const int trump) {
    if (betl && target == n) {
        uint32_t reg;
        /* Betl, the declarer must take every trick left: no as soon as he can surely lose this one. */
        if (betl_loses_trick(c, all, t, &reg)) {
            *rel = reg;
            return 0;
        }
    }
    if (betl && target == n - 1 && n >= 3 && c->nplayed == 1) {
        /* Betl, the declarer must take all tricks left but one: no when he can surely lose two. Not at the
         * trick's last card, where each child starts a trick and its own checks answer as soon. */
        uint32_t reg;
        if (betl_loses_two_mid(c, all, t, &reg)) {
            *rel = reg;
            return 0;
        }
    }
    if (trump < 0 && !betl) {
        /* Sans: yes when the tricks he surely takes from a trick he surely takes reach the target. */
        uint32_t reg;
        if (sans_sure_tricks(c, all, target, &reg) >= target) {
            *rel = reg;
            return 1;
        }
    }
    if (!betl && target == n) {
        /* The declarer must take every trick left: no when he holds a card of a suit s, not trumps and not the
         * suit led to the trick in progress, whose highest card in the hands a defender D holds. Proof: D keeps
         * that card (he parts with it only when following s; void in a suit led, he trumps if he can, else
         * discards another card unless it is his last). Consider the first trick in which the declarer plays a
         * card of s (he must, he holds one): if s is not the led suit, he is void in it and holds no trump
         * (else he must trump), so his card loses; if it is, he follows, D follows with the highest card of s,
         * and only a defender's trump can beat it (when it is D's last card, it is this trick). Either way he
         * loses a trick. *rel: that top card (the lengths say the rest). */
        uint32_t dh = c->h[c->declarer], hands = c->h[0] | c->h[1] | c->h[2];
        int led = c->nplayed ? c->tcards[0] >> 3 : -1;
        for (int s = 0; s < 4; s++) {
            if (s == led || s == c->trump || !(dh & SUIT[s])) continue;
            int top = TOPBIT(hands & SUIT[s]);
            if (!(dh >> top & 1)) {
                *rel = closure(all, 1u << top);
                return 0;
            }
        }
    }
    if (trump >= 0 && c->nplayed) {
        /* With trumps: yes when a trick he surely takes and the quick tricks he then cashes reach the target. */
        uint32_t reg;
        if (trump_sure_tricks(c, all, target, &reg) >= target) {
            *rel = reg;
            return 1;
        }
    }
    if (betl && target == 1) {
        /* Betl, does the declarer take a trick: yes when the defenders can make him take this one. */
        uint32_t reg;
        if (betl_takes_trick(c, all, t, &reg)) {
            *rel = reg;
            return 1;
        }
    }
    return -1;
}

/* The last trick (one card each, a trick's start): played out directly. */
static ALWAYS_INLINE int last_trick(Ctx *c, int seat, uint32_t all, uint32_t *rel) {
    c->tcards[0] = CTZ(c->h[seat]);
    c->tcards[1] = CTZ(c->h[NEXT[seat]]);
    c->tcards[2] = CTZ(c->h[NEXT[NEXT[seat]]]);
    int wi = winning_index(c);
    *rel = trick_region(all, c->tcards[0], c->tcards[1], c->tcards[2], wi);
    return MOD3[c->tleader + wi] == c->declarer;
}

/* The table, probed before the cheap bounds at a trick's start (a hit saves the quick-trick count): the matching
 * entries as a bit mask first (four at a time where SSE2 is there), then visited in index order; the first whose
 * bounds decide the target answers. Otherwise *first receives the first matching entry's best lead, as a card of
 * seat (or stays -1). The relative hands k are computed only when the bucket holds an entry of this shape (else
 * they wait for the store: *have_k says which). */
static ALWAYS_INLINE int probe_table(const Ctx *c, Bucket *b, uint32_t s01, uint32_t s2, uint32_t k[2], int *have_k,
                                     int target, int seat, uint32_t all, int *first, uint32_t *rel) {
    uint32_t hits = 0;
    if (same_shape(b, s01, s2)) {
        normalize(c->h, k);
        *have_k = 1;
        hits = probe_bucket(b, s01, s2, k[0], k[1]);
    }
    while (hits) {
        int i = CTZ(hits);
        hits &= hits - 1;
        int r = -1;
        if ((b->bounds[i] >> 4) >= target) r = 1;
        else if ((b->bounds[i] & 15) < target) r = 0;
        if (r >= 0) {
            b->gen[i] = c->gen;
            *rel = expand_region(all, b->region[i]);
            return r;
        }
        if (*first < 0 && b->move[i] != NO_CARD) {
            int s = b->move[i] >> 3;
            unsigned bit = EXPAND[(all >> (8 * s)) & 0xFFu][1u << (b->move[i] & 7)];
            if (bit && (c->h[seat] >> (8 * s + CTZ(bit)) & 1)) *first = 8 * s + CTZ(bit);
        }
    }
    return -1;
}

/* With trumps, at a trick's start: bounds [*lo, *hi] on the declarer's tricks from the trumps alone, with the
 * cards each depends on. */
static ALWAYS_INLINE void trump_bounds(const Ctx *c, int n, uint32_t all, const int trump, int *lo, uint32_t *lo_reg,
                                       int *hi, uint32_t *hi_reg) {
    uint32_t T = SUIT[trump];
    uint32_t trumps = all & T;
    if (!trumps) return;
    /* The top trumps of one player win whenever they are played. */
    int top = TOPBIT(trumps);
    int owner = (c->h[0] >> top & 1) ? 0 : (c->h[1] >> top & 1) ? 1 : 2;
    uint32_t rest = trumps & ~c->h[owner];
    uint32_t runs = rest ? c->h[owner] & trumps & ~((2u << TOPBIT(rest)) - 1u) : 0;
    int run = rest ? POPCNT(runs) : POPCNT(trumps);
    if (owner == c->declarer) {
        *lo = run;
        *lo_reg = runs;
    } else {
        *hi = n - run;
        *hi_reg = runs;
    }
    /* A trump loses only to a higher trump of the other side played to the same trick, and each trump is played
     * once: the declarer's trumps win at least their number minus the most (defender trump, lower declarer
     * trump) pairs; the defenders win at least as many tricks as the longer defender has trumps, minus the most
     * (declarer trump, lower defender trump) pairs. Only the trumps from the lower side's lowest one up matter. */
    uint32_t dt = c->h[c->declarer] & T;
    uint32_t o1 = c->h[NEXT[c->declarer]] & T, o2 = c->h[NEXT[NEXT[c->declarer]]] & T;
    if (dt) {
        int sure = POPCNT(dt) - beat_pairs((o1 | o2) >> (8 * trump), dt >> (8 * trump));
        if (sure > *lo) {
            *lo = sure;
            *lo_reg = closure(trumps, dt & (0u - dt));
        }
    }
    if (o1 | o2) {
        int longer = POPCNT(o1) > POPCNT(o2) ? POPCNT(o1) : POPCNT(o2);
        int sure = longer - beat_pairs(dt >> (8 * trump), (o1 | o2) >> (8 * trump));
        if (n - sure < *hi) {
            *hi = n - sure;
            *hi_reg = closure(trumps, (o1 | o2) & (0u - (o1 | o2)));
        }
    }
}

/* Sans and trump, a trick's start after the table: the trump bounds, the leader's quick tricks, and a defender's
 * lead to his partner's quick tricks. */
static ALWAYS_INLINE int lead_bounds(const Ctx *c, int target, int n, int seat, uint32_t all, uint32_t *rel,
                                     const int trump) {
    int lo = 0, hi = n;
    uint32_t lo_reg = 0, hi_reg = 0;
    if (trump >= 0) trump_bounds(c, n, all, trump, &lo, &lo_reg, &hi, &hi_reg);
    if (lo >= target) {
        *rel = lo_reg;
        return 1;
    }
    if (hi < target) {
        *rel = hi_reg;
        return 0;
    }
    uint32_t qreg = 0;
    int need = seat == c->declarer ? target : n - target + 1;
    int q = quick_tricks(c, seat, need, trump, &qreg);
    if (q >= need) {
        *rel = qreg;
        return seat == c->declarer;
    }
    if (seat != c->declarer) {
        /* A defender on lead can first give his partner the lead: in a suit where the partner holds the top card
         * and the leader a card to lead, unless the declarer could ruff that first round; then the partner's
         * quick tricks count (his entry is one of them). */
        int partner = 3 - seat - c->declarer;
        uint32_t lh = c->h[seat], ph = c->h[partner], dh = c->h[c->declarer];
        uint32_t dtrumps = trump >= 0 ? dh & SUIT[trump] : 0;
        for (int su = 0; su < 4; su++) {
            uint32_t as = all & SUIT[su];
            if (!(lh & SUIT[su]) || !(ph >> TOPBIT(as) & 1)) continue;
            if (dtrumps && su != trump && !(dh & SUIT[su])) continue;
            uint32_t preg = 0;
            int qp = quick_tricks(c, partner, need, trump, &preg);
            if (qp >= need) {
                *rel = closure(all, preg | 1u << TOPBIT(as));
                return 0;
            }
            break; /* the partner's count does not depend on the entry suit */
        }
    }
    return -1;
}

/* Betl, a trick's start after the table: the sure ducks; a declarer on lead who must take every trick left, or
 * who can surely lose two of the next three. */
static ALWAYS_INLINE int betl_lead_bounds(const Ctx *c, int target, int n, int seat, uint32_t all, uint32_t *rel) {
    int decl = c->declarer;
    uint32_t dh = c->h[decl], others = all & ~dh;
    {
        /* He surely ducks more than n - target tricks in a row: he takes fewer than target. */
        uint32_t dreg;
        if (n - betl_ducks(c, seat, all, n - target + 1, &dreg) < target) {
            *rel = dreg;
            return 0;
        }
    }
    if (seat == decl) {
        /* When the declarer leads and every suit he holds has his lowest card above all the others' cards of it,
         * he takes this trick and keeps the lead with the same holding: he takes every trick left (any target up
         * to n). */
        uint32_t used = 0;
        int forced = 1;
        for (int su = 0; su < 4 && forced; su++) {
            uint32_t ds = dh & SUIT[su], os = others & SUIT[su];
            if (!ds) continue;
            if (os) used |= ds; /* his cards are the top cards there; where the others are void, the lengths say it */
            if (os && CTZ(ds) < TOPBIT(os)) forced = 0;
        }
        if (forced) {
            *rel = used;
            return 1;
        }
        if (target == n - 1 && n >= 3) {
            uint32_t reg;
            if (betl_loses_two(c, all, &reg)) {
                *rel = reg;
                return 0;
            }
        }
    }
    return -1;
}

/* A lead of seat cut off at n tricks left, after the leads moves[0..i-1] failed: it becomes the killer there, and
 * its history weighs 2**n while the leads tried before in vain lose twice that (down to 0), so a lead that cut
 * off once does not stay ahead of one that does now. */
static ALWAYS_INLINE void note_cutoff(Ctx *c, int seat, int n, const int *moves, int i) {
    int m = moves[i];
    c->killer[seat][n] = (uint8_t)m;
    uint32_t *hp = c->hist[seat];
    uint32_t malus = 2u << n;
    for (int j = 0; j < i; j++) hp[moves[j]] = hp[moves[j]] > malus ? hp[moves[j]] - malus : 0;
    hp[m] += 1u << n;
    if (hp[m] > (1u << 20)) /* aged, so that long batches neither overflow nor stop adapting */
        for (int j = 0; j < 32; j++) hp[j] >>= 1;
}

/* The moves of seat in order, each searched, until one reaches the node's aim (a cut-off). Returns the node's
 * answer; *best: the move that cut off, or -1; *rel: the cut-off move's cards, or every move's together (extended
 * over the runs of equivalent cards left out). */
static ALWAYS_INLINE int search_moves(Ctx *c, int target, int n, uint32_t all, int seat, const Trick *t, int wpos,
                                      int first, uint32_t *rel, int *best, const int betl, const int trump) {
    int moves[12];
    uint32_t runs;
    int nm = gen_moves(c, seat, n, moves, &runs, first, all, t, wpos, betl, trump);
    int maxnode = c->ismax[seat];
    uint32_t acc = 0, child;
    *best = -1;
    for (int i = 0; i < nm; i++) {
        int m = moves[i], r;
        c->h[seat] &= ~(1u << m);
        /* the place in the trick of the card winning it after m */
        int wi = !c->nplayed || beats(m, t->win, trump) ? c->nplayed : wpos;
        c->tcards[c->nplayed++] = m;
        if (c->nplayed == 3) {
            int w = MOD3[c->tleader + wi];
            int saved = c->tleader;
            int t0 = c->tcards[0], t1 = c->tcards[1], t2 = c->tcards[2];
            c->tleader = w;
            c->nplayed = 0;
            r = search_strain(c, target - (w == c->declarer), &child, n - 1, all & ~(1u << t0 | 1u << t1 | 1u << t2),
                              betl, trump);
            c->tleader = saved;
            c->nplayed = 3;
            c->tcards[0] = t0;
            c->tcards[1] = t1;
            c->tcards[2] = t2;
            child = closure(all, child | trick_region(all, t0, t1, t2, wi));
        } else {
            c->wpos = wi;
            r = search_strain(c, target, &child, n, all, betl, trump);
        }
        c->nplayed--;
        c->h[seat] |= 1u << m;
        if (r == maxnode) {
            if (!c->nplayed) note_cutoff(c, seat, n, moves, i);
            *best = m;
            *rel = child;
            return r;
        }
        acc |= child;
    }
    acc = closure(all, acc);
    if (runs) acc = extend_runs(all, acc, runs);
    *rel = acc;
    return !maxnode;
}

/* Store the node's answer for the class of positions that agree on its region: into the entry of exactly this
 * class when the bucket holds one, else over victim()'s choice; the bounds narrowed by the answer, the best lead
 * kept in relative rank. victim() starts its turn at the Solver's node counter, which clear() keeps: the node
 * counts of a search depend on what the Solver searched before (the values never do). */
static ALWAYS_INLINE void store(const Ctx *c, Bucket *b, uint32_t s01, uint32_t s2, uint32_t k[2], int have_k, int n,
                                int target, int result, int best, uint32_t all, uint32_t acc) {
    uint32_t region = compress_region(all, acc);
    if (!have_k) normalize(c->h, k); /* (the hands are as they were at the probe) */
    uint32_t k0 = k[0] & region, k1 = k[1] & region;
    uint32_t same = same_entries(b, s01, s2, region, k0, k1);
    int hit = same ? CTZ(same) : -1;
    if (hit < 0) {
        hit = victim(b, c->gen, (unsigned)c->nodes % BUCKET);
        b->shape01[hit] = s01;
        b->shape2[hit] = s2;
        b->k0[hit] = k0;
        b->k1[hit] = k1;
        b->region[hit] = region;
        b->depth[hit] = (uint8_t)n;
        b->bounds[hit] = (uint8_t)n;
        b->move[hit] = NO_CARD;
    }
    b->gen[hit] = c->gen;
    int lo = b->bounds[hit] >> 4, hi = b->bounds[hit] & 15;
    if (result) {
        if (target > lo) lo = target;
    } else if (target - 1 < hi) {
        hi = target - 1;
    }
    b->bounds[hit] = (uint8_t)(lo << 4 | hi);
    if (best >= 0) {
        int s = best >> 3;
        unsigned cm = COMPRESS[(all >> (8 * s)) & 0xFFu][1u << (best & 7)];
        b->move[hit] = (uint8_t)(8 * s + CTZ(cm));
    }
}

/* search() where n, the cards of the seat to move (the tricks left, the current one included), is known. Its body
 * is compiled once per strain (search_betl, search_sans, search_trump: betl and trump are constants there, trump
 * -1 in sans and betl), so that each copy carries only its strain's checks; it recurses into its own copy. The
 * steps: the bounds any card of a trick may meet; at a trick's start, the last trick played out, the table, then
 * the strain's lead bounds; the moves; the store. */
static ALWAYS_INLINE int search_n(Ctx *c, int target, uint32_t *rel, int n, uint32_t all, const int betl,
                                  const int trump) {
    int seat = MOD3[c->tleader + c->nplayed];
    *rel = 0;
    if (target <= 0) return 1;
    if (target > n) return 0;
    c->nodes++;
    Trick t = {0, 0};
    int wpos = c->wpos; /* (children overwrite c->wpos) */
    if (c->nplayed) {
        t.led = c->tcards[0] >> 3;
        t.win = c->tcards[wpos];
    }
    Bucket *b = NULL;
    uint32_t s01 = 0, s2 = 0;
    if (!c->nplayed && n >= TT_MIN_DEPTH) b = node_bucket(c, seat, &s01, &s2, betl);
    int r = trick_bounds(c, target, n, all, &t, rel, betl, trump);
    if (r >= 0) return r;
    uint32_t k[2] = {0, 0};
    int have_k = 0, first = -1;
    if (!c->nplayed) {
        if (n == 1) return last_trick(c, seat, all, rel);
        if (b && (r = probe_table(c, b, s01, s2, k, &have_k, target, seat, all, &first, rel)) >= 0) return r;
        r = betl ? betl_lead_bounds(c, target, n, seat, all, rel) : lead_bounds(c, target, n, seat, all, rel, trump);
        if (r >= 0) return r;
    }
    int best;
    int result = search_moves(c, target, n, all, seat, &t, wpos, first, rel, &best, betl, trump);
    if (b) store(c, b, s01, s2, k, have_k, n, target, result, best, all, *rel);
    return result;
}

static int search_betl(Ctx *c, int target, uint32_t *rel, int n, uint32_t all) {
    return search_n(c, target, rel, n, all, 1, -1);
}
static int search_sans(Ctx *c, int target, uint32_t *rel, int n, uint32_t all) {
    return search_n(c, target, rel, n, all, 0, -1);
}
static int search_trump(Ctx *c, int target, uint32_t *rel, int n, uint32_t all) {
    return search_n(c, target, rel, n, all, 0, c->trump & 3); /* (& 3: a no-op that tells the compiler 0..3) */
}

/* The exact value of the current position, which lies in [lo, hi], found by yes/no searches from a guess. */
static int exact(Ctx *c, int lo, int hi, int guess) {
    int t = guess;
    while (lo < hi) {
        if (t <= lo) t = lo + 1;
        if (t > hi) t = hi;
        uint32_t rel;
        if (search(c, t, &rel)) {
            lo = t;
            t++;
        } else {
            hi = t - 1;
            t--;
        }
    }
    return lo;
}

/* A validated position. */
typedef struct {
    uint32_t h[3];
    int to_move;
    int tleader;
    int ntrick;
    int trick[2];
    int trump;    /* -1: none */
    int betl;
    int declarer;
} Position;

/* Returns NULL when the position is consistent, else a message. */
static const char *check_position(const Position *p) {
    uint32_t seen = 0;
    for (int i = 0; i < 3; i++) {
        if (p->h[i] & seen) return "a card appears in two hands";
        seen |= p->h[i];
    }
    for (int k = 0; k < p->ntrick; k++) {
        if (p->trick[k] < 0 || p->trick[k] > 31) return "a trick card is not a card index 0..31";
        if (seen >> p->trick[k] & 1) return "a card on the table also appears in a hand";
        seen |= 1u << p->trick[k];
    }
    if ((p->tleader + p->ntrick) % 3 != p->to_move)
        return "to_move does not follow the trick leader and the cards already played";
    int size = POPCNT(p->h[p->to_move]);
    for (int k = 0; k < 3; k++) {
        int seat = (p->tleader + k) % 3;
        int want = k < p->ntrick ? size - 1 : size;
        if (POPCNT(p->h[seat]) != want) return "hand sizes do not fit the trick in progress";
    }
    if (p->ntrick && size == 0) return "hand sizes do not fit the trick in progress";
    return NULL;
}

static void load(Ctx *c, const Position *p) {
    c->h[0] = p->h[0];
    c->h[1] = p->h[1];
    c->h[2] = p->h[2];
    c->tleader = p->tleader;
    c->nplayed = p->ntrick;
    for (int k = 0; k < p->ntrick; k++) c->tcards[k] = p->trick[k];
}

/* The legal cards of the seat to move (all of them, not only one per equivalence group). */
static uint32_t legal_mask(const Ctx *c) { return legal_cards(c, (c->tleader + c->nplayed) % 3); }

/* The value after the seat to move plays card m (which must be legal), clamped to [floor, cap] (cap < 0: no
 * cap; exact() returns the clamped value when the true one lies outside its range); the context is restored
 * after. */
static int value_after(Ctx *c, int m, int guess, int floor, int cap) {
    int seat = (c->tleader + c->nplayed) % 3;
    int saved_leader = c->tleader, saved_np = c->nplayed;
    int t0 = c->tcards[0], t1 = c->tcards[1];
    int left = POPCNT(c->h[seat]); /* tricks left counting the current one */
    int won = 0, v;
    if (cap < 0 || cap > left) cap = left;
    if (floor < 0) floor = 0;
    if (floor > cap) floor = cap;
    c->h[seat] &= ~(1u << m);
    c->tcards[c->nplayed++] = m;
    if (c->nplayed == 3) {
        int w = trick_winner(c);
        won = w == c->declarer;
        c->tleader = w;
        c->nplayed = 0;
        int lo = floor - won < 0 ? 0 : floor - won, hi = cap - won < left - 1 ? cap - won : left - 1;
        if (won >= cap) v = cap;
        else if (lo >= hi) v = won + hi;
        else v = won + exact(c, lo, hi, guess - won);
        if (v < floor) v = floor;
    } else {
        v = exact(c, floor, cap, guess);
    }
    c->h[seat] |= 1u << m;
    c->tleader = saved_leader;
    c->nplayed = saved_np;
    c->tcards[0] = t0;
    c->tcards[1] = t1;
    return v;
}

/* Does the declarer take at least target tricks from the loaded position (the trick in progress included)? */
static int reach(Ctx *c, int target) {
    uint32_t rel;
    return search(c, target, &rel);
}

/* ---------------------------------------------------------------------------------------------------- */
/* Python type Solver */

typedef struct {
    PyObject_HEAD
    Ctx ctx;
    int tt_bits;
    int busy;
    int have_context;
    int clean; /* the table is empty (nothing stored since the last clear) */
} SolverObject;

static void clear_table(SolverObject *self) {
    size_t n = (size_t)self->ctx.nbuckets_mask + 1;
    memset(self->ctx.tt, 0, n * sizeof(Bucket)); /* shape2 0: empty, never matches */
    memset(self->ctx.hist, 0, sizeof self->ctx.hist);
    memset(self->ctx.killer, NO_CARD, sizeof self->ctx.killer);
    self->ctx.gen = 0;
    self->clean = 1;
}

static size_t table_bytes(int bits) { return ((size_t)1 << bits) / BUCKET * sizeof(Bucket) + 64; }

static void free_table(SolverObject *self) {
    if (self->ctx.tt_block) {
        free(self->ctx.tt_block);
        total_tt_bytes -= table_bytes(self->tt_bits);
        self->ctx.tt_block = NULL;
        self->ctx.tt = NULL;
    }
}

static int Solver_init(SolverObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"tt_bits", NULL};
    int bits = 18;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|i", kwlist, &bits)) return -1;
    if (bits < 8 || bits > MAX_TT_BITS) {
        PyErr_Format(PyExc_ValueError, "tt_bits must be between 8 and %d", MAX_TT_BITS);
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Solver is in use by another thread");
        return -1;
    }
    free_table(self);
    size_t bytes = table_bytes(bits);
    if (total_tt_bytes + bytes > tt_limit_bytes) {
        PyErr_Format(PyExc_MemoryError, "solver tables would pass %zu MB in all (%zu MB in use)", tt_limit_bytes >> 20,
                     total_tt_bytes >> 20);
        return -1;
    }
    self->ctx.tt_block = malloc(bytes);
    if (!self->ctx.tt_block) {
        PyErr_NoMemory();
        return -1;
    }
    total_tt_bytes += bytes;
    self->ctx.tt = (Bucket *)(((uintptr_t)self->ctx.tt_block + 63) & ~(uintptr_t)63);
    self->tt_bits = bits;
    self->ctx.nbuckets_mask = (uint32_t)(((size_t)1 << bits) / BUCKET - 1);
    self->busy = 0;
    self->have_context = 0;
    self->ctx.nodes = 0;
    clear_table(self);
    return 0;
}

static void Solver_dealloc(SolverObject *self) {
    free_table(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Parse and check the arguments shared by solve, batch and reaches into p. Nothing of the Solver changes here:
 * a call refused for its input never touches a table another thread may be searching. */
static int parse_common(SolverObject *self, int trump, int betl, int declarer, int to_move, PyObject *trick,
                        int trick_leader, Position *p) {
    if (!self->ctx.tt) {
        PyErr_SetString(PyExc_RuntimeError, "Solver not initialised");
        return -1;
    }
    if (trump < -1 || trump > 3) {
        PyErr_SetString(PyExc_ValueError, "trump must be -1 (none) or a suit 0..3");
        return -1;
    }
    if (betl && trump != -1) {
        PyErr_SetString(PyExc_ValueError, "betl is played without trumps");
        return -1;
    }
    if (declarer < 0 || declarer > 2 || to_move < 0 || to_move > 2) {
        PyErr_SetString(PyExc_ValueError, "seats are 0, 1, 2");
        return -1;
    }
    PyObject *seq = PySequence_Fast(trick, "trick must be a sequence of card indices");
    if (!seq) return -1;
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(seq);
    if (nt > 2) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "a trick in progress holds at most two cards");
        return -1;
    }
    p->ntrick = (int)nt;
    for (Py_ssize_t i = 0; i < nt; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < 0 || v > 31) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "card indices are 0..31");
            return -1;
        }
        p->trick[i] = (int)v;
    }
    Py_DECREF(seq);
    if (nt == 0) trick_leader = to_move;
    if (trick_leader < 0 || trick_leader > 2) {
        PyErr_SetString(PyExc_ValueError, "a trick in progress needs its leader (seat 0, 1 or 2)");
        return -1;
    }
    p->to_move = to_move;
    p->tleader = trick_leader;
    p->trump = trump;
    p->betl = betl != 0;
    p->declarer = declarer;
    return 0;
}

/* Set the strain context of a Solver taken by this call (acquire() first), clearing its table on a change. */
static void set_context(SolverObject *self, const Position *p) {
    if (!self->have_context || self->ctx.trump != p->trump || self->ctx.betl != p->betl ||
        self->ctx.declarer != p->declarer) {
        if (!self->clean) clear_table(self); /* a table just cleared (clear()) is not cleared twice */
        self->ctx.trump = p->trump;
        self->ctx.betl = p->betl;
        self->ctx.declarer = p->declarer;
        for (int i = 0; i < 3; i++) self->ctx.ismax[i] = (i == p->declarer) != p->betl;
        self->have_context = 1;
    }
    self->clean = 0;
}

static int parse_hands(PyObject *hands, Position *p) {
    PyObject *seq = PySequence_Fast(hands, "hands must be a sequence of three masks");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 3) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "hands must be three masks");
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        unsigned long long v = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v >> 32) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a hand mask has 32 bits");
            return -1;
        }
        p->h[i] = (uint32_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

static int acquire(SolverObject *self) {
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Solver is in use by another thread; use one Solver per thread");
        return -1;
    }
    self->busy = 1;
    return 0;
}

PyDoc_STRVAR(solve_doc,
             "solve(hands, trump, betl, declarer, to_move, trick=(), trick_leader=-1) -> list[tuple[int, int]]\n\n"
             "For every legal card of to_move (ascending card index): (card, declarer's tricks from here).\n"
             "trump is -1 for sans and betl; trick holds the cards already played by trick_leader and the next.");

static PyObject *Solver_solve(SolverObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"hands", "trump", "betl", "declarer", "to_move", "trick", "trick_leader", NULL};
    PyObject *hands, *trick = NULL;
    int trump, betl, declarer, to_move, trick_leader = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Oipii|Oi", kwlist, &hands, &trump, &betl, &declarer, &to_move,
                                     &trick, &trick_leader))
        return NULL;
    Position p;
    PyObject *empty = NULL;
    if (!trick) trick = empty = PyTuple_New(0);
    int bad = parse_hands(hands, &p) || parse_common(self, trump, betl, declarer, to_move, trick, trick_leader, &p);
    Py_XDECREF(empty);
    if (bad) return NULL;
    const char *msg = check_position(&p);
    if (msg) {
        PyErr_SetString(PyExc_ValueError, msg);
        return NULL;
    }
    if (acquire(self)) return NULL;
    set_context(self, &p);
    int cards[32], values[32], nc = 0;
    Py_BEGIN_ALLOW_THREADS
    Ctx *c = &self->ctx;
    load(c, &p);
    c->gen++;
    uint32_t legal = legal_mask(c);
    uint32_t inplay = c->h[0] | c->h[1] | c->h[2];
    for (int k = 0; k < c->nplayed; k++) inplay |= 1u << c->tcards[k];
    int guess = c->betl ? 1 : (POPCNT(c->h[p.to_move]) + 1) / 2; /* betl values are mostly small */
    while (legal) {
        cards[nc++] = CTZ(legal);
        legal &= legal - 1;
    }
    /* Cards were visited low to high: fill from the top so each run of equivalent cards is searched once. */
    for (int i = nc - 1; i >= 0; i--) {
        int m = cards[i];
        uint32_t above = inplay & SUIT[m >> 3] & ~((2u << m) - 1u);
        if (above && i + 1 < nc && cards[i + 1] == CTZ(above)) {
            values[i] = values[i + 1];
        } else {
            values[i] = value_after(c, m, guess, 0, -1);
            guess = values[i];
        }
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyObject *out = PyList_New(nc);
    if (!out) return NULL;
    for (int i = 0; i < nc; i++) {
        PyObject *t = Py_BuildValue("(ii)", cards[i], values[i]);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

/* Check every layout of a buffer (three native uint32 masks each) against the prototype position, before the
 * Solver is taken: returns the index of the first bad layout and its message, or -1. */
static Py_ssize_t check_layouts(const uint32_t *lay, Py_ssize_t nl, const Position *proto, const char **msg) {
    for (Py_ssize_t l = 0; l < nl; l++) {
        Position p = *proto;
        memcpy(p.h, lay + 3 * l, sizeof p.h);
        *msg = check_position(&p);
        if (*msg) return l;
    }
    return -1;
}

PyDoc_STRVAR(batch_doc,
             "batch(layouts, trump, betl, declarer, to_move, trick, trick_leader, cards, cap=-1, relative=False)\n"
             "-> bytes\n\n"
             "layouts: a buffer of native uint32, three hand masks per layout (array('I') or bytes).\n"
             "All layouts share the strain, declarer, seat to move and trick in progress. For each layout and\n"
             "each card of `cards` (in that order) one byte: the declarer's tricks from here after that card,\n"
             "or 255 when the card is not a legal play in that layout. With cap >= 0 the value is capped at cap\n"
             "tricks (min(value, cap): e.g. betl, where play stops at the declarer's first trick, needs cap 1 and\n"
             "then one yes/no search per card). With relative, the values of the cards after the first (when\n"
             "it is legal) are clamped to within one trick of the first card's value: enough to tell whether each\n"
             "is better, worse or the same, in one or two yes/no searches. The table is shared across layouts, so\n"
             "give them in an order\n"
             "where neighbours share cards (e.g. combinatorial order). The input is checked in full before the\n"
             "Solver is used.");

static PyObject *Solver_batch(SolverObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"layouts", "trump", "betl", "declarer", "to_move", "trick", "trick_leader", "cards",
                             "cap", "relative", NULL};
    Py_buffer buf;
    PyObject *trick, *cards_obj;
    int trump, betl, declarer, to_move, trick_leader, cap = -1, relative = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*ipiiOiO|ip", kwlist, &buf, &trump, &betl, &declarer, &to_move,
                                     &trick, &trick_leader, &cards_obj, &cap, &relative))
        return NULL;
    PyObject *result = NULL;
    Position proto;
    int cards[32], ncards = 0;
    if (buf.len % 12 != 0) {
        PyErr_SetString(PyExc_ValueError, "layouts must hold three uint32 masks per layout");
        goto done;
    }
    if (cap < -1 || cap > 10) {
        PyErr_SetString(PyExc_ValueError, "cap is -1 (none) or 0..10 tricks");
        goto done;
    }
    if (parse_common(self, trump, betl, declarer, to_move, trick, trick_leader, &proto)) goto done;
    PyObject *seq = PySequence_Fast(cards_obj, "cards must be a sequence of card indices");
    if (!seq) goto done;
    Py_ssize_t nc = PySequence_Fast_GET_SIZE(seq);
    if (nc < 1 || nc > 32) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "give between 1 and 32 cards");
        goto done;
    }
    for (Py_ssize_t i = 0; i < nc; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v > 31) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "card indices are 0..31");
            goto done;
        }
        cards[i] = (int)v;
    }
    ncards = (int)nc;
    Py_DECREF(seq);
    Py_ssize_t nl = buf.len / 12;
    const uint32_t *lay = (const uint32_t *)buf.buf;
    const char *msg = NULL;
    Py_ssize_t bad = check_layouts(lay, nl, &proto, &msg);
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "layout %zd: %s", bad, msg);
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, nl * ncards);
    if (!result) goto done;
    if (acquire(self)) {
        Py_CLEAR(result);
        goto done;
    }
    set_context(self, &proto);
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    Ctx *c = &self->ctx;
    int guess = -1;
    for (Py_ssize_t l = 0; l < nl; l++) {
        Position p = proto;
        memcpy(p.h, lay + 3 * l, sizeof p.h);
        load(c, &p);
        c->gen++;
        uint32_t legal = legal_mask(c);
        if (guess < 0) guess = c->betl ? 1 : (POPCNT(c->h[to_move]) + 1) / 2;
        int g = guess, first = -1;
        for (int i = 0; i < ncards; i++) {
            int m = cards[i];
            if (!(legal >> m & 1)) {
                out[l * ncards + i] = 255;
                continue;
            }
            int v;
            if (relative && i > 0 && first >= 0)
                v = value_after(c, m, first, first - 1, cap >= 0 && cap < first + 1 ? cap : first + 1);
            else
                v = value_after(c, m, g, 0, cap);
            out[l * ncards + i] = (uint8_t)v;
            g = v;
            if (i == 0) guess = first = v;
        }
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
done:
    PyBuffer_Release(&buf);
    return result;
}


PyDoc_STRVAR(reaches_doc,
             "reaches(layouts, trump, betl, declarer, to_move, trick, trick_leader, target) -> bytes\n\n"
             "For each layout (three native uint32 masks) one byte: 1 when the declarer takes at least `target`\n"
             "tricks from this position (the current trick included) under best play by everyone, else 0.\n"
             "One yes/no search per layout: e.g. whether the declarer can make his contract from trick 1\n"
             "(target 6; in betl, `not reaches(..., 1)`). The input is checked in full before the Solver is used.");

static PyObject *Solver_reaches(SolverObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"layouts", "trump", "betl", "declarer", "to_move", "trick", "trick_leader", "target",
                             NULL};
    Py_buffer buf;
    PyObject *trick;
    int trump, betl, declarer, to_move, trick_leader, target;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*ipiiOii", kwlist, &buf, &trump, &betl, &declarer, &to_move,
                                     &trick, &trick_leader, &target))
        return NULL;
    PyObject *result = NULL;
    Position proto;
    if (buf.len % 12 != 0) {
        PyErr_SetString(PyExc_ValueError, "layouts must hold three uint32 masks per layout");
        goto done;
    }
    if (target < 0 || target > 11) {
        PyErr_SetString(PyExc_ValueError, "target is 0..11 tricks");
        goto done;
    }
    if (parse_common(self, trump, betl, declarer, to_move, trick, trick_leader, &proto)) goto done;
    Py_ssize_t nl = buf.len / 12;
    const uint32_t *lay = (const uint32_t *)buf.buf;
    const char *msg = NULL;
    Py_ssize_t bad = check_layouts(lay, nl, &proto, &msg);
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "layout %zd: %s", bad, msg);
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, nl);
    if (!result) goto done;
    if (acquire(self)) {
        Py_CLEAR(result);
        goto done;
    }
    set_context(self, &proto);
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    Ctx *c = &self->ctx;
    for (Py_ssize_t l = 0; l < nl; l++) {
        Position p = proto;
        memcpy(p.h, lay + 3 * l, sizeof p.h);
        load(c, &p);
        c->gen++;
        out[l] = (uint8_t)reach(c, target);
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
done:
    PyBuffer_Release(&buf);
    return result;
}

static PyObject *Solver_clear(SolverObject *self, PyObject *Py_UNUSED(ignored)) {
    if (!self->ctx.tt) {
        PyErr_SetString(PyExc_RuntimeError, "Solver not initialised");
        return NULL;
    }
    if (acquire(self)) return NULL;
    clear_table(self);
    self->have_context = 0;
    self->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *Solver_stats(SolverObject *self, PyObject *Py_UNUSED(ignored)) {
    size_t entries = ((size_t)self->ctx.nbuckets_mask + 1) * BUCKET;
    return Py_BuildValue("{s:K,s:n,s:n,s:n}", "nodes", (unsigned long long)self->ctx.nodes, "tt_entries",
                         (Py_ssize_t)entries, "tt_bytes", (Py_ssize_t)(entries / BUCKET * sizeof(Bucket)),
                         "all_tables_bytes", (Py_ssize_t)total_tt_bytes);
}

static PyMethodDef Solver_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))Solver_solve, METH_VARARGS | METH_KEYWORDS, solve_doc},
    {"batch", (PyCFunction)(void (*)(void))Solver_batch, METH_VARARGS | METH_KEYWORDS, batch_doc},
    {"reaches", (PyCFunction)(void (*)(void))Solver_reaches, METH_VARARGS | METH_KEYWORDS, reaches_doc},
    {"clear", (PyCFunction)Solver_clear, METH_NOARGS, "Empty the transposition table."},
    {"stats", (PyCFunction)Solver_stats, METH_NOARGS, "Counters: nodes searched, table entries and bytes."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rules.arbitar._dds.Solver",
    .tp_basicsize = sizeof(SolverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A double-dummy solver with its own transposition table (Solver(tt_bits=18)).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_methods = Solver_methods,
};

/* ---------------------------------------------------------------------------------------------------- */
/* Layouts in revolving-door order: consecutive layouts differ by one card changing hands. */

typedef struct {
    uint32_t *out;
    size_t count;
    const uint32_t *bits; /* bit of the i-th free card */
    uint32_t base[3];
    uint32_t free_all;
    int seat_a, seat_b;
} LayoutGen;

static void emit(LayoutGen *g, uint32_t chosen) {
    uint32_t *o = g->out + 3 * g->count++;
    o[0] = g->base[0];
    o[1] = g->base[1];
    o[2] = g->base[2];
    o[g->seat_a] |= chosen;
    o[g->seat_b] |= g->free_all & ~chosen;
}

/* All k-subsets of the first n free cards, in revolving-door order (reversed when rev), each joined to
 * `chosen`. R(n, k) = R(n-1, k) then reversed R(n-1, k-1) with card n-1 added. */
static void revolving(LayoutGen *g, int n, int k, int rev, uint32_t chosen) {
    if (k == 0) {
        emit(g, chosen);
        return;
    }
    if (k == n) {
        for (int i = 0; i < n; i++) chosen |= g->bits[i];
        emit(g, chosen);
        return;
    }
    if (!rev) {
        revolving(g, n - 1, k, 0, chosen);
        revolving(g, n - 1, k - 1, 1, chosen | g->bits[n - 1]);
    } else {
        revolving(g, n - 1, k - 1, 0, chosen | g->bits[n - 1]);
        revolving(g, n - 1, k, 1, chosen);
    }
}

PyDoc_STRVAR(layouts_doc,
             "layouts(free_cards, count_a, base, seat_a, seat_b) -> bytes\n\n"
             "Every way to give count_a of free_cards (a sequence of card indices) to seat_a and the rest to\n"
             "seat_b, added to base (three hand masks): three native uint32 masks per layout, in revolving-door\n"
             "order (one card changes hands between neighbours). The first cards of free_cards change hands\n"
             "most often: put the small cards first, so neighbouring layouts share the most endings.");

static PyObject *dds_layouts(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *cards_obj, *base_obj;
    int count_a, seat_a, seat_b;
    if (!PyArg_ParseTuple(args, "OiOii", &cards_obj, &count_a, &base_obj, &seat_a, &seat_b)) return NULL;
    if (seat_a < 0 || seat_a > 2 || seat_b < 0 || seat_b > 2 || seat_a == seat_b) {
        PyErr_SetString(PyExc_ValueError, "seat_a and seat_b are two different seats 0..2");
        return NULL;
    }
    Position p;
    if (parse_hands(base_obj, &p)) return NULL;
    PyObject *seq = PySequence_Fast(cards_obj, "free_cards must be a sequence of card indices");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    uint32_t bits[32], used = p.h[0] | p.h[1] | p.h[2];
    if ((p.h[0] & p.h[1]) || (p.h[0] & p.h[2]) || (p.h[1] & p.h[2])) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "base hands overlap");
        return NULL;
    }
    if (n > 32) n = 33; /* reported below */
    for (Py_ssize_t i = 0; i < n && i < 32; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (v < 0 || v > 31 || (used >> v & 1)) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "free cards must be distinct card indices 0..31 not in base");
            return NULL;
        }
        bits[i] = 1u << v;
        used |= bits[i];
    }
    Py_DECREF(seq);
    if (n > 32 || count_a < 0 || count_a > n) {
        PyErr_SetString(PyExc_ValueError, "count_a must be between 0 and the number of free cards");
        return NULL;
    }
    /* C(n, k) */
    double total = 1;
    for (int i = 0; i < count_a; i++) total = total * (double)(n - i) / (double)(i + 1);
    size_t count = (size_t)(total + 0.5);
    if (count > 5000000) {
        PyErr_SetString(PyExc_ValueError, "too many layouts");
        return NULL;
    }
    PyObject *result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count * 12));
    if (!result) return NULL;
    LayoutGen g;
    g.out = (uint32_t *)PyBytes_AS_STRING(result);
    g.count = 0;
    g.bits = bits;
    g.base[0] = p.h[0];
    g.base[1] = p.h[1];
    g.base[2] = p.h[2];
    g.free_all = 0;
    for (Py_ssize_t i = 0; i < n; i++) g.free_all |= bits[i];
    g.seat_a = seat_a;
    g.seat_b = seat_b;
    revolving(&g, (int)n, count_a, 0, 0);
    if (g.count != count) {
        Py_DECREF(result);
        PyErr_SetString(PyExc_RuntimeError, "layout count mismatch");
        return NULL;
    }
    return result;
}

PyDoc_STRVAR(module_solve_doc,
             "solve(hands, trump, betl, declarer, to_move, trick=(), trick_leader=-1) -> list[tuple[int, int]]\n\n"
             "Solver.solve with a small table of its own (2**14 entries), for one-off calls; keep a Solver\n"
             "(or use rules.arbitar.solver) for many.");

static PyObject *dds_solve(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    PyObject *solver = PyObject_CallFunction((PyObject *)&SolverType, "i", 14);
    if (!solver) return NULL;
    PyObject *result = Solver_solve((SolverObject *)solver, args, kwds);
    Py_DECREF(solver);
    return result;
}

PyDoc_STRVAR(set_table_limit_doc,
             "set_table_limit(limit_bytes) -> int\n\n"
             "Bound the tables of every Solver of the process together at limit_bytes (default MAX_TOTAL_TT_BYTES); "
             "a new table past it raises MemoryError. Tables that exist stay. Returns the previous limit.");

static PyObject *dds_set_table_limit(PyObject *Py_UNUSED(module), PyObject *arg) {
    Py_ssize_t limit = PyLong_AsSsize_t(arg);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "the table limit is a number of bytes, 0 or more");
        return NULL;
    }
    size_t previous = tt_limit_bytes;
    tt_limit_bytes = (size_t)limit;
    return PyLong_FromSize_t(previous);
}

PyDoc_STRVAR(table_memory_doc,
             "table_memory() -> tuple[int, int]\n\n"
             "(bytes held by the tables of every Solver of the process, the limit they may take together).");

static PyObject *dds_table_memory(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored)) {
    return Py_BuildValue("(nn)", (Py_ssize_t)total_tt_bytes, (Py_ssize_t)tt_limit_bytes);
}

static PyMethodDef module_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))dds_solve, METH_VARARGS | METH_KEYWORDS, module_solve_doc},
    {"set_table_limit", (PyCFunction)dds_set_table_limit, METH_O, set_table_limit_doc},
    {"table_memory", (PyCFunction)dds_table_memory, METH_NOARGS, table_memory_doc},
    {"layouts", (PyCFunction)dds_layouts, METH_VARARGS, layouts_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_dds", "Native double-dummy solver for preferans (see rules/arbitar/solver.py).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dds(void) {
    init_tables();
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MAX_TT_BITS", MAX_TT_BITS) < 0 ||
        PyModule_AddIntConstant(m, "ENTRY_BYTES", (long)(sizeof(Bucket) / BUCKET)) < 0 ||
        PyModule_AddIntConstant(m, "MAX_TOTAL_TT_BYTES", (long)MAX_TOTAL_TT_BYTES) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
