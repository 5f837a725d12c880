#ifndef FXS_CLI_COMMANDS_H
#define FXS_CLI_COMMANDS_H

#include "fixstep/fixstep.h"

typedef struct cli_command {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

int cmd_scenes(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_settle(int argc, char **argv);
int cmd_spherewalls(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_peer(int argc, char **argv); /* not with SESSIONS=0 */
int cmd_netdemo(int argc, char **argv);
int cmd_synctest(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_draw(int argc, char **argv);

/* "trace STEP body SLOT p X Y Z v X Y Z": the body's position and velocity
 * in decimal (run --trace, replay --trace) */
void cli_print_trace(const fxs_world *w, uint32_t slot, uint64_t step);

#endif
