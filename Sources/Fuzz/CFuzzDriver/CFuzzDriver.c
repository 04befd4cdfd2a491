// Only the header matters (the declaration of libFuzzer's driver); SwiftPM needs one source file.
#include "CFuzzDriver.h"
