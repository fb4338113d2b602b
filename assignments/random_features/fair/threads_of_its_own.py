# A fair alternative: the module gives torch sixteen threads for its products when it is imported (as a student with a
# sixteen-core machine might); every function is the reference's. Threads reserve address space (their stacks) inside the
# first call that starts them: the long-sequence test's capped call, the first of a fresh process, must still fit.
torch.set_num_threads(16)
