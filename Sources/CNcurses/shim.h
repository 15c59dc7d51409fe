#ifndef TOKENCALL_CNCURSES_SHIM_H
#define TOKENCALL_CNCURSES_SHIM_H
#define NCURSES_WIDECHAR 1
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
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

/* What `number` did before the terminal was taken over: end the process, or the Swift runtime's backtrace. */
static inline struct sigaction *tc_previous_action(int number) {
    static struct sigaction previous[NSIG];
    return &previous[number];
}

/* Set once a signal has given the terminal back; from then on nothing may draw or read keys: the process is ending,
   but a backtrace (and its prompt) may still take a while, and the threads go on until it is done. */
static inline int *tc_given_back_flag(void) {
    static int given_back;
    return &given_back;
}

static inline int tc_terminal_given_back(void) { return __atomic_load_n(tc_given_back_flag(), __ATOMIC_SEQ_CST); }

/* On a signal that ends the process: give the terminal back, then let the signal do what it did before (the Swift
   runtime's backtrace on a crash or SIGQUIT), so that it writes on a sane terminal below the screen, not over it. */
static void tc_ending_signal(int number, siginfo_t *info, void *context) {
    (void)context;
    __atomic_store_n(tc_given_back_flag(), 1, __ATOMIC_SEQ_CST);
    endwin();
    sigaction(number, tc_previous_action(number), NULL);
    /* A fault of the instruction itself happens again on return, where the previous handler sees where it was. */
    int fault = number == SIGSEGV || number == SIGBUS || number == SIGILL || number == SIGFPE;
    if (fault && info->si_code > 0) return;
    /* Anything else is handed over now, and ends the process even when the previous handler returns (the runtime's
       does, after a backtrace, expecting the fault to come again). */
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, number);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
    raise(number);
    signal(number, SIG_DFL);
    raise(number);
}

/* Catches `number` unless it is ignored, remembering what it did before. */
static inline void tc_catch_ending_signal(int number) {
    struct sigaction *previous = tc_previous_action(number);
    if (sigaction(number, NULL, previous) != 0) return;
    if (!(previous->sa_flags & SA_SIGINFO) && previous->sa_handler == SIG_IGN) return;
    struct sigaction action = { .sa_sigaction = tc_ending_signal, .sa_flags = SA_SIGINFO | SA_ONSTACK };
    sigemptyset(&action.sa_mask);
    sigaction(number, &action, NULL);
}

/* Every signal whose default action ends the process (not SIGKILL, which cannot be caught). */
static inline void tc_restore_terminal_on_ending_signals(void) {
    int ending[] = { SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE,
                     SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS };
    for (unsigned i = 0; i < sizeof ending / sizeof ending[0]; i++) tc_catch_ending_signal(ending[i]);
    for (int number = SIGRTMIN; number <= SIGRTMAX; number++) tc_catch_ending_signal(number);
}

#endif
