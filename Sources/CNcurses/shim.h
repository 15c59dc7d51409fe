#ifndef TOKENCALL_CNCURSES_SHIM_H
#define TOKENCALL_CNCURSES_SHIM_H
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/ncurses.h>

/* Macros and globals Swift cannot import, as functions. */
static inline int tc_lines(void) { return LINES; }
static inline int tc_cols(void) { return COLS; }
static inline WINDOW *tc_stdscr(void) { return stdscr; }
static inline attr_t tc_a_bold(void) { return A_BOLD; }
static inline attr_t tc_a_reverse(void) { return A_REVERSE; }
static inline attr_t tc_a_dim(void) { return A_DIM; }

#endif
