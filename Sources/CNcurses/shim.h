// Thin C shims over ncurses (wide-character build).
// Swift 6 strict concurrency rejects ncurses' mutable globals (stdscr, COLORS, LINES)
// and cannot import its function-like macros (COLOR_PAIR, getmaxyx); these wrappers
// are the only way TillTerminal reaches them.
#ifndef TILL_CNCURSES_SHIM_H
#define TILL_CNCURSES_SHIM_H
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <stdlib.h>
#include <wchar.h>
#include <ncursesw/curses.h>

static inline WINDOW *till_stdscr(void) { return stdscr; }
static inline int till_lines(void) { return LINES; }
static inline int till_cols(void) { return COLS; }
static inline int till_colors(void) { return COLORS; }
static inline int till_color_pairs(void) { return COLOR_PAIRS; }
static inline int till_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline void till_getmaxyx(int *y, int *x) { int yy, xx; getmaxyx(stdscr, yy, xx); *y = yy; *x = xx; }
static inline int till_key_resize(void) { return KEY_RESIZE; }
static inline int till_err(void) { return ERR; }
static inline unsigned int till_a_bold(void) { return (unsigned int)A_BOLD; }
static inline unsigned int till_a_reverse(void) { return (unsigned int)A_REVERSE; }
static inline unsigned int till_a_underline(void) { return (unsigned int)A_UNDERLINE; }
static inline unsigned int till_a_dim(void) { return (unsigned int)A_DIM; }
static inline unsigned int till_a_normal(void) { return (unsigned int)A_NORMAL; }
static inline int till_key_f(int n) { return KEY_F(n); }
/* Only the character type (UTF-8 for wide characters) comes from the environment: the other categories would
   only cost start-up time (a file each) and give C library messages in another language than the screen's. */
static inline void till_set_locale(void) { setlocale(LC_CTYPE, ""); }
static inline void till_set_escdelay(int ms) { set_escdelay(ms); }

/// Puts one wide character with attributes and a colour pair at (y, x).
static inline int till_put_wch(int y, int x, wchar_t ch, unsigned int attrs, short pair) {
    cchar_t cc;
    wchar_t wstr[2] = { ch, L'\0' };
    setcchar(&cc, wstr, (attr_t)attrs, pair, NULL);
    return mvwadd_wch(stdscr, y, x, &cc);
}

/// Puts one grapheme cluster (a base character and its combining marks, NUL-terminated, at most
/// CCHARW_MAX wide characters) at (y, x).
static inline int till_put_cluster(int y, int x, const wchar_t *wstr, unsigned int attrs, short pair) {
    cchar_t cc;
    if (setcchar(&cc, wstr, (attr_t)attrs, pair, NULL) != OK) {
        wchar_t first[2] = { wstr[0], L'\0' };
        setcchar(&cc, first, (attr_t)attrs, pair, NULL);
    }
    return mvwadd_wch(stdscr, y, x, &cc);
}

/// Rings the terminal's bell (a verdict arrived).
static inline void till_beep(void) { beep(); }

/// Reads one key as a wide character or a function-key code.
/// Returns OK (char in *out), KEY_CODE_YES (key code in *out) or ERR (timeout).
static inline int till_get_wch(wint_t *out) { return wget_wch(stdscr, out); }

/// Gives a character back to the input queue: the next read returns it first.
static inline int till_unget_wch(wint_t ch) { return unget_wch((wchar_t)ch); }
/// Gives a function-key code (KEY_F(7), KEY_DOWN …) back to the input queue.
static inline int till_unget_key(int code) { return ungetch(code); }

/// Starts curses the way till wants it: raw keys (Ctrl-C is a key, not a signal), no echo,
/// keypad decoding, short Esc delay, hidden cursor, reads that wait at most `timeout_ms`.
static inline void till_start(int timeout_ms) {
    initscr();
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    leaveok(stdscr, TRUE);
    scrollok(stdscr, FALSE);
    wtimeout(stdscr, timeout_ms);
    /* ncurses 6.4 writes out its buffer at every cursor move until the screen has once been suspended and resumed
       (after initscr its state stays "initial"): every frame then went out as dozens of small writes, each a chance
       for the terminal to show half a frame. One suspend and resume before anything is drawn makes it one write per
       frame. */
    endwin();
    wrefresh(stdscr);
    keypad(stdscr, TRUE);  /* the suspend turned the keypad's application mode off; the resume does not turn it on */
}
static inline void till_timeout(int ms) { wtimeout(stdscr, ms); }
static inline int till_has_colors(void) { return has_colors() ? 1 : 0; }
static inline int till_start_color(void) { int r = start_color(); use_default_colors(); return r; }
static inline int till_init_pair(short pair, short fg, short bg) { return init_pair(pair, fg, bg); }
static inline void till_refresh(void) { wrefresh(stdscr); }
static inline void till_clear(void) { wclear(stdscr); }
static inline void till_end(void) { endwin(); }
static inline int till_key_code_yes(void) { return KEY_CODE_YES; }
/// The terminfo name of a key code: "KEY_A1" for the keypad's 7, "kpADD" (an extended name) for its +.
static inline const char *till_keyname(int code) { return keyname(code); }
#endif

