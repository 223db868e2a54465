BEGIN {
	trace(rand()); trace(htons(1)); trace(htonl(1)); trace(htonll(1)); trace(ntohs(1)); trace(ntohl(1)); trace(ntohll(1));
	trace(copyinstr(arg0)); trace(copyinstr(arg0, 10)); this->p = copyin(arg0, 8); trace(progenyof(1)); trace(getmajor(0)); trace(getminor(0));
	trace(inet_ntoa(&`x)); trace(mutex_owned(arg0)); trace(mutex_owner(arg0)); trace(mutex_type_adaptive(arg0)); trace(mutex_type_spin(arg0));
	trace(rw_read_held(arg0)); trace(rw_write_held(arg0)); trace(rw_iswriter(arg0)); trace(msgsize(arg0)); trace(msgdsize(arg0));
	trace(inet_ntop(2, arg0)); trace(inet_ntoa6(arg0)); trace(ddi_pathname(arg0, 0)); trace(getf(0));
	this->m = alloca(10); bcopy(arg0, this->m, 10); copyinto(arg0, 4, this->m);
}
