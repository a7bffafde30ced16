mod support;

mod batch;

mod exec_file;
mod execute;
mod faults;
mod fetch;
mod hostile;
mod index_search;
mod load;
mod process;
mod properties;
mod protocol;
mod script_cache;
mod security;
