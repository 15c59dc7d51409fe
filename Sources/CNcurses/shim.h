#ifndef TOKENCALL_CNCURSES_SHIM_H
#define TOKENCALL_CNCURSES_SHIM_H
#define NCURSES_WIDECHAR 1
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <wchar.h>
#include <ncursesw/ncurses.h>

/* Macros and globals Swift cannot import, as functions. */
static inline int tc_lines(void) { return LINES; }
static inline int tc_cols(void) { return COLS; }
static inline int tc_colors(void) { return COLORS; }
static inline int tc_color_pairs(void) { return COLOR_PAIRS; }
static inline WINDOW *tc_stdscr(void) { return stdscr; }
static inline attr_t tc_a_bold(void) { return A_BOLD; }
static inline attr_t tc_a_reverse(void) { return A_REVERSE; }
static inline const char *tc_codeset(void) { return nl_langinfo(CODESET); }

/* A screen on this process's stdin/stdout; NULL when TERM names no usable terminal. */
static inline SCREEN *tc_newterm(void) { return newterm(NULL, stdout, stdin); }

/* A terminfo string capability of the current terminal; NULL when it has none. */
static inline const char *tc_capability(const char *name) {
    char *value = tigetstr(name);
    return value == (char *)-1 ? NULL : value;
}

/* A capability with one or two numbers filled in (tiparm is variadic, which Swift cannot call). */
static inline const char *tc_format1(const char *capability, int a) { return tiparm(capability, a); }
static inline const char *tc_format2(const char *capability, int a, int b) { return tiparm(capability, a, b); }

/* On a fatal signal: give the terminal back, then die of the same signal. */
static void tc_fatal_signal(int number) {
    endwin();
    signal(number, SIG_DFL);
    raise(number);
}

static inline void tc_restore_terminal_on_fatal_signals(void) {
    int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
    for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], tc_fatal_signal);
}

#endif
