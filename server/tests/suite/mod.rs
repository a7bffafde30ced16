mod support;

mod exec_file;
mod execute;
mod index_search;
mod process;
mod protocol;
mod script_cache;
