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
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
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

/* The screen's own buffered output, as ncurses writes its capabilities (libtinfo, exported since 5.8; term.h, which
   declares tputs_sp, also defines a macro for every capability). `putp` would write through stdio's stdout. */
extern int tputs_sp(SCREEN *, const char *, int, int (*)(SCREEN *, int));
extern int _nc_outch_sp(SCREEN *, int);

/// A string capability of the terminal, or NULL when it has none (tigetstr's -1: not a string capability).
static inline char *till_cap(const char *name) {
    char *cap = tigetstr(name);
    return cap == (char *)-1 ? NULL : cap;
}
/// Puts a terminfo string into the screen's output buffer, written with the next refresh.
static inline void till_put_string(SCREEN *sp, const char *string) {
    if (string != NULL) tputs_sp(sp, string, 1, _nc_outch_sp);
}
/// The same for a capability by name, if the terminal has it.
static inline void till_put_cap(SCREEN *sp, const char *name) { till_put_string(sp, till_cap(name)); }

/* Declared here rather than by a feature-test macro, which would change the C library's structures in this module
   against the other modules' (Dispatch's fd_set). */
extern int posix_openpt(int);
extern int unlockpt(int);

/// A pseudo-terminal with the real terminal's modes and size, for ncurses to start on: the slave's descriptor, or -1
/// (the master in *master).
static inline int till_stand_in(int real, int *master) {
    struct termios modes;
    struct winsize size;
    *master = -1;
    if (tcgetattr(real, &modes) != 0 || ioctl(real, TIOCGWINSZ, &size) != 0) return -1;
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0) return -1;
    int slave = -1;
    if (unlockpt(m) == 0) slave = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave < 0 || tcsetattr(slave, TCSANOW, &modes) != 0 || ioctl(slave, TIOCSWINSZ, &size) != 0) {
        if (slave >= 0) close(slave);
        close(m);
        return -1;
    }
    *master = m;
    return slave;
}

/// Starts curses the way till wants it: raw keys (Ctrl-C is a key, not a signal), no echo,
/// keypad decoding, short Esc delay, hidden cursor, reads that wait at most `timeout_ms`.
/// Nothing reaches the terminal until the first frame, which goes in one write.
static inline void till_start(int timeout_ms) {
    /* ncurses 6.4 writes out its buffer at every cursor move until the screen has once been suspended and
       resumed (its state stays "initial" after initscr): a frame went to the terminal as dozens of small
       writes, each a wake-up of the terminal and a chance to show half a frame. A suspend and resume before
       anything is drawn puts it in the running state: one write per frame. But the start, the suspend and the
       resume each write at once (seven writes: the alternate screen entered, left and entered again, a visible
       flash on some terminals, and seven times the terminal's work while till starts). So they are done on a
       stand-in pseudo-terminal with the real one's modes and size; then the real terminal takes its place under
       the same descriptor, gets the modes ncurses set (raw, no echo), and what the resume wrote is put again into
       ncurses' buffer, to go out with the first frame. Without a stand-in (no pseudo-terminals here), the start
       is done on the real terminal as before. */
    int master = -1;
    int real = -1;
    int slave = till_stand_in(STDOUT_FILENO, &master);
    if (slave >= 0) {
        real = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
        if (real < 0 || dup2(slave, STDOUT_FILENO) < 0) {
            if (real >= 0) close(real);
            real = -1;
        }
    }
    SCREEN *sp = newterm(NULL, stdout, stdin);   /* what initscr does, keeping the screen */
    if (sp == NULL) { initscr(); sp = set_term(NULL); set_term(sp); }   /* initscr ends the program with a message */
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    leaveok(stdscr, TRUE);
    scrollok(stdscr, FALSE);
    wtimeout(stdscr, timeout_ms);
    endwin();
    wrefresh(stdscr);
    keypad(stdscr, TRUE);  /* the suspend turned the keypad's application mode off; the resume does not turn it on */
    if (real >= 0) {
        struct termios modes;
        int ok = tcgetattr(STDOUT_FILENO, &modes) == 0;
        dup2(real, STDOUT_FILENO);
        close(real);
        if (ok) tcsetattr(STDOUT_FILENO, TCSADRAIN, &modes);
        /* The resume's writes, in its order (lib_mvcur.c _nc_mvcur_resume, tty_update.c _nc_screen_resume), then
           the keypad's; the clear is the first frame's, which repaints every cell. */
        till_put_cap(sp, "smcup");
        char *csr = till_cap("csr");
        if (csr != NULL) till_put_string(sp, tiparm(csr, 0, LINES - 1));
        till_put_cap(sp, "civis");
        till_put_cap(sp, "sgr0");
        till_put_cap(sp, "rmir");
        if (tigetflag("am") > 0 && till_cap("rmam") != NULL) till_put_cap(sp, "smam");
        till_put_cap(sp, "smkx");
        clearok(curscr, TRUE);
    }
    if (slave >= 0) close(slave);
    if (master >= 0) close(master);
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

